// The account page's "Push to this device": register the service worker (/sw.js), ask
// for permission, subscribe with the server's VAPID public key, and post the browser's
// subscription to /api/v1/me/push-devices/ (the session's cookie and CSRF token). The
// list of devices, with a Remove button each, is the page's own (plain forms).
(function () {
  "use strict";
  const section = document.getElementById("push");
  const button = document.getElementById("push-on");
  const status = document.getElementById("push-status");
  if (!section || !button || !status) return;
  const api = section.dataset.api;
  const key = section.dataset.key;
  const csrf = document.querySelector('meta[name="csrf-token"]').content;

  function say(text) {
    status.textContent = text;
  }

  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
    button.disabled = true;
    say("This browser cannot receive push notifications.");
    return;
  }
  button.hidden = false;

  // The VAPID key (base64url) as the bytes PushManager.subscribe takes.
  function keyBytes(text) {
    const base64 = (text + "=".repeat((4 - (text.length % 4)) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  }

  // "Firefox on Linux": what the list calls this device.
  function deviceName() {
    const agent = navigator.userAgent;
    const browser = /Firefox\//.test(agent) ? "Firefox"
      : /Edg\//.test(agent) ? "Edge"
      : /Chrom(e|ium)\//.test(agent) ? "Chrome"
      : /Safari\//.test(agent) ? "Safari" : "A browser";
    const system = /Android/.test(agent) ? "Android"
      : /iPhone|iPad/.test(agent) ? "iOS"
      : /Windows/.test(agent) ? "Windows"
      : /Mac OS X/.test(agent) ? "macOS"
      : /Linux/.test(agent) ? "Linux" : "";
    return (system ? `${browser} on ${system}` : browser).slice(0, 100);
  }

  async function send(subscription) {
    const response = await fetch(api, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify({ ...subscription.toJSON(), name: deviceName() }),
    });
    const body = await response.json().catch(() => ({}));
    return { ok: response.ok, code: body.code, detail: body.detail };
  }

  function subscribe(registration) {
    return registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
  }

  async function turnOn() {
    const permission = await Notification.requestPermission();
    if (permission !== "granted") {
      say("Notifications are blocked for this site: allow them in the browser's settings, then try again.");
      return;
    }
    const registration = await navigator.serviceWorker.register("/sw.js", { scope: "/" });
    await navigator.serviceWorker.ready;
    let subscription = (await registration.pushManager.getSubscription()) || (await subscribe(registration));
    let answer = await send(subscription);
    if (answer.code === "endpoint_taken") {
      // This browser's subscription is another account's (someone else logged in here
      // before): a new subscription gets a new endpoint, and theirs stops working.
      await subscription.unsubscribe();
      subscription = await subscribe(registration);
      answer = await send(subscription);
    }
    if (!answer.ok) {
      say(answer.detail || "The server did not take the subscription.");
      return;
    }
    say("Push is on for this device.");
    // The page lists the devices: show it again with this one.
    window.location.reload();
  }

  // On load: say whether this browser is one of the devices listed (the API knows the endpoints).
  async function showState() {
    const registration = await navigator.serviceWorker.getRegistration("/");
    const subscription = registration && (await registration.pushManager.getSubscription());
    if (!subscription || Notification.permission !== "granted") return;
    const response = await fetch(api, { credentials: "same-origin", headers: { Accept: "application/json" } });
    if (!response.ok) return;
    const listed = await response.json();
    if (listed.devices.some((device) => device.endpoint === subscription.endpoint)) {
      say("Push is on for this device.");
    }
  }
  showState().catch(() => {});

  button.addEventListener("click", () => {
    button.disabled = true;
    say("Turning push on…");
    turnOn()
      .catch((error) => say(`Push could not be turned on here: ${error.message}`))
      .finally(() => {
        button.disabled = false;
      });
  });
})();
