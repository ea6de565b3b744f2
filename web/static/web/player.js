// The player's page: its plots, drawn by Chart.js (vendor/chart.umd.min.js, loaded
// before this) from the figures the page carries in #player-charts (json_script).
// Every plot reads without colour alone: each line has its own point style and dash,
// named in the legend with that style, and the axes say what they count. The tables
// beside the canvases hold the same figures: they are what a screen reader reads
// (each canvas is role="img" with a summary) and what shows without this script.
(function () {
  "use strict";
  const source = document.getElementById("player-charts");
  if (!source || typeof window.Chart === "undefined") return;
  const data = JSON.parse(source.textContent);
  const Chart = window.Chart;

  // Distinct in shape and dash first; the colours (Okabe and Ito's, darkened for
  // contrast on white) only help.
  const POINTS = ["circle", "rect", "triangle", "rectRot", "star", "crossRot", "cross", "rectRounded"];
  const DASHES = [[], [8, 4], [2, 3], [12, 4, 2, 4], [4, 4], [1, 3], [16, 4], [6, 2, 2, 2]];
  const COLOURS = ["#2451a6", "#b35900", "#1d7a4f", "#a3357f", "#6b5d00", "#0072b2", "#c0261f", "#5d5866"];

  const style = getComputedStyle(document.body);
  Chart.defaults.color = style.color;
  Chart.defaults.font.family = style.fontFamily;
  Chart.defaults.font.size = 13;
  // Drawn at once: no animation to wait for (or to be dizzied by).
  Chart.defaults.animation = false;

  function axis(title, extra) {
    return Object.assign({title: {display: true, text: title, font: {weight: "bold"}}}, extra || {});
  }

  function historyChart(canvas, figures) {
    const datasets = figures.series.map((series, index) => ({
      label: series.label,
      data: series.points.map(([x, y]) => ({x, y})),
      pointStyle: POINTS[index % POINTS.length],
      borderDash: DASHES[index % DASHES.length],
      borderColor: COLOURS[index % COLOURS.length],
      backgroundColor: COLOURS[index % COLOURS.length],
      pointRadius: 4,
      pointHoverRadius: 6,
      borderWidth: 2,
      tension: 0,
    }));
    return new Chart(canvas, {
      type: "line",
      data: {datasets},
      options: {
        responsive: true,
        maintainAspectRatio: false,
        parsing: true,
        scales: {
          x: axis(figures.x, {type: "linear", ticks: {precision: 0}}),
          y: axis(figures.y, {ticks: {precision: 0}}),
        },
        plugins: {
          legend: {labels: {usePointStyle: true}},
          tooltip: {callbacks: {title: (items) => `${figures.x} ${items[0].parsed.x}`}},
        },
      },
    });
  }

  function barChart(canvas, figures) {
    return new Chart(canvas, {
      type: "bar",
      data: {
        labels: figures.labels,
        datasets: [{
          label: figures.y,
          data: figures.values,
          backgroundColor: "rgba(36, 81, 166, 0.35)",
          borderColor: COLOURS[0],
          borderWidth: 2,
        }],
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        scales: {
          x: axis(figures.x),
          y: axis(figures.y, {min: 0, max: 100, ticks: {callback: (value) => `${value}%`}}),
        },
        // One series: the axes name it, a legend would only repeat them.
        plugins: {legend: {display: false}},
      },
    });
  }

  const DRAW = {history: historyChart, sizes: barChart, bots: barChart};
  document.querySelectorAll("canvas[data-chart]").forEach((canvas) => {
    const kind = canvas.dataset.chart;
    if (DRAW[kind] && data[kind]) {
      DRAW[kind](canvas, data[kind]);
      canvas.dataset.drawn = "true";
    }
  });
})();
