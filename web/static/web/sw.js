// Gamenook's service worker, served at /sw.js (scope "/") by web.pwa.service_worker.
// It does one thing: show the notifications the server pushes (notifications/push.py)
// and open the table when one is clicked. It caches nothing and handles no fetch: the
// pages stay the server's. A push's payload is JSON: title, body, url, tag, kind.
"use strict";

// The icon's URL, written in by the view (the static files' URL may be hashed).
const ICON = "__GAMENOOK_ICON__";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

// A link of this site only: a payload's url is reduced to its path here, so a
// notification never opens another origin.
function sitePath(url) {
  try {
    const parsed = new URL(url, self.location.origin);
    return parsed.pathname + parsed.search + parsed.hash;
  } catch (error) {
    return "/";
  }
}

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (error) {
    data = {};
  }
  const text = (value, fallback) => (typeof value === "string" && value ? value : fallback);
  const title = text(data.title, "Gamenook");
  event.waitUntil(
    self.registration.showNotification(title, {
      body: text(data.body, ""),
      // One notification per table: a new one about the same table replaces the last,
      // and renotify makes the replacement ring again.
      tag: text(data.tag, "gamenook"),
      renotify: true,
      icon: ICON,
      badge: ICON,
      data: { url: sitePath(text(data.url, "/")), kind: text(data.kind, "") },
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const path = (event.notification.data && event.notification.data.url) || "/";
  const target = new URL(path, self.location.origin).href;
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      for (const client of windows) {
        if (client.url === target && "focus" in client) return client.focus();
      }
      return self.clients.openWindow(target);
    })(),
  );
});
