// How a table page learns that its table changed: one small interface, two parts.
//
//   const live = Gamenook.live.connect({url, etag, onUpdate(html, etag)});
//                      // onUpdate returns false to refuse an update older than the page
//   live.known(etag)   // the page already shows this version (after its own move)
//   live.refresh()     // ask now
//   live.close()
//
// Today the transport polls the live fragment once a second with If-None-Match;
// the server answers 304 until the table's seq (or the viewer's seat) changes.
// A WebSocket transport (real-time tables) can replace it behind the same calls.
(function () {
  "use strict";
  const Gamenook = (window.Gamenook = window.Gamenook || {});

  class Poller {
    constructor({url, etag, onUpdate, interval = 1000}) {
      this.url = url;
      this.etag = etag || "";
      this.onUpdate = onUpdate;
      this.interval = interval;
      this.timer = null;
      this.closed = false;
      this.inFlight = false;
      this.schedule(interval);
    }
    schedule(delay) {
      if (this.closed) return;
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.refresh(), delay);
    }
    known(etag) {
      if (etag) this.etag = etag;
    }
    async refresh() {
      if (this.closed || this.inFlight) return;
      this.inFlight = true;
      let delay = this.interval;
      try {
        const headers = {"X-Gamenook-Live": "1"};
        if (this.etag) headers["If-None-Match"] = this.etag;
        const response = await fetch(this.url, {headers, cache: "no-store", credentials: "same-origin"});
        if (response.status === 200) {
          const etag = response.headers.get("ETag") || "";
          const html = await response.text();
          if (this.onUpdate(html, etag) !== false) this.etag = etag;
        } else if (response.status !== 304) {
          delay = this.interval * 5; // the server is unwell or the page is gone: back off
        }
      } catch (error) {
        delay = this.interval * 3; // offline for a moment: try again a little later
      } finally {
        this.inFlight = false;
        this.schedule(delay);
      }
    }
    close() {
      this.closed = true;
      clearTimeout(this.timer);
    }
  }

  Gamenook.live = {
    transports: {poll: Poller},
    connect(options) {
      const Transport = Gamenook.live.transports[options.transport || "poll"];
      return new Transport(options);
    },
  };
})();
