// How a table page learns that its table changed: one small interface, two transports.
//
//   const live = Gamenook.live.connect({
//     url,              // the live fragment (GET with If-None-Match)
//     etag,             // the version the page shows
//     onUpdate(html, etag),  // returns false to refuse an update older than the page
//     transport,        // "poll" (default) or "socket"
//     socketUrl,        // "socket": the table's WebSocket path, /ws/tables/<id>/
//     onState(state),   // "socket": "connecting", "live", "polling", "reconnecting" or "closed"
//   });
//   live.known(etag)   // the page already shows this version (after its own move)
//   live.refresh()     // ask now
//   live.close()
//   live.state         // the socket's state ("live" for the poller)
//   live.socketId      // "socket": the open socket's id (its hello frame), else null;
//                      // a move sent with it in X-Gamenook-Socket is not pushed back
//
// The poller asks for the live fragment once a second with If-None-Match; the server
// answers 304 until the table's seq (or the viewer's seat) changes.
// The socket (every table page, docs/web.md) is told of each change as it commits: a
// "view" frame (the API's view of this user, with the table's seq). On each it fetches
// the fragment exactly as the poller does (one GET with If-None-Match: a 304 when the
// page already shows it), so the page renders one way whichever transport runs. It reconnects by itself, with a
// backoff, and fetches once on every (re)connection for what it missed. While it is
// not open (it dropped, it cannot connect, or the server refused it) the page polls
// as the poller does, so it never stops updating: data-live="polling" while the
// polls are answered, "reconnecting" (and the class "live-reconnecting" on <html>)
// while they are not either. Every state is in data-live, and onState is called.
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
      this.state = "live";
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

  // Close codes 4400-4499 are refusals (not logged in, no longer allowed, no such
  // table): connecting again would be refused again.
  const REFUSED = (code) => code >= 4400 && code < 4500;
  // 4401 also ends a socket whose credential stopped working (live.consumers): after a
  // password change the browser's session has a new key, and one more try with the
  // cookie it now holds is admitted. A second 4401 in a row means logged out.
  const CREDENTIAL_ENDED = 4401;

  class Socket {
    constructor({
      url,
      etag,
      onUpdate,
      socketUrl,
      onState,
      backoff = 500,
      maxBackoff = 15000,
      interval = 1000,
      openTimeout = 5000,
    }) {
      this.url = url;
      this.etag = etag || "";
      this.onUpdate = onUpdate;
      this.onState = onState || (() => {});
      this.backoff = backoff;
      this.maxBackoff = maxBackoff;
      this.interval = interval; // the fallback's polls, as the poller's
      this.openTimeout = openTimeout;
      this.attempts = 0;
      this.closed = false;
      this.refused = false; // the server refused the socket: the page polls from now on
      this.polling = false;
      this.pollTimer = null;
      this.openTimer = null;
      this.inFlight = false;
      this.again = false;
      this.seq = null; // the seq of the last view frame
      this.socketId = null; // from the open socket's hello frame
      this.timer = null;
      this.socketUrl = new URL(socketUrl, window.location.href);
      this.socketUrl.protocol = this.socketUrl.protocol === "https:" ? "wss:" : "ws:";
      this.setState("connecting");
      this.open();
    }
    setState(state) {
      if (state === this.state) return;
      this.state = state;
      const html = document.documentElement;
      html.dataset.live = state;
      html.classList.toggle("live-reconnecting", state === "reconnecting");
      this.onState(state);
    }
    open() {
      if (this.closed) return;
      let ws;
      try {
        ws = this.ws = new WebSocket(this.socketUrl.href);
      } catch (error) {
        // Not allowed here at all (a policy, a browser without them): poll for good.
        this.refused = true;
        this.startPolling();
        return;
      }
      // A handshake that hangs (a proxy holding the upgrade) must not leave the page
      // unfed: poll meanwhile; the socket stops the polls if it opens after all.
      clearTimeout(this.openTimer);
      this.openTimer = setTimeout(() => this.startPolling(), this.openTimeout);
      ws.onopen = () => {
        clearTimeout(this.openTimer);
        this.attempts = 0;
        this.stopPolling();
        this.setState("live");
      };

      ws.onmessage = (event) => {
        let frame;
        try {
          frame = JSON.parse(event.data);
        } catch (error) {
          return;
        }
        if (frame.type === "hello") {
          // Named in our own moves (X-Gamenook-Socket): their answers bring the view,
          // so the server does not send this socket that change.
          this.socketId = frame.socket;
          this.retriedCredential = false; // admitted: a later 4401 earns a try again
          return;
        }
        if (frame.type !== "view") return;
        // The server sends a view only when it differs from the last one this socket
        // got, and once on every (re)connection: each is worth one conditional GET.
        this.seq = frame.view.seq;
        this.refresh();
      };
      ws.onclose = (event) => {
        clearTimeout(this.openTimer);
        this.ws = null;
        this.seq = null;
        this.socketId = null;
        if (this.closed) return;
        const retry = event.code === CREDENTIAL_ENDED && !this.retriedCredential;
        if (REFUSED(event.code) && !retry) {
          // Refused (too many sockets of this user at the table, logged out, no
          // longer allowed): asking again would be refused again, but the fragment
          // may still be there to poll, and its answers say which.
          this.refused = true;
          this.startPolling();
          return;
        }
        if (retry) this.retriedCredential = true;
        // Dropped, or it never opened (no WebSockets on the way): poll until it is back.
        // The polls' answers say whether the page is still live ("polling") or has
        // lost the server ("reconnecting"): a socket that cannot open is no alarm.
        this.startPolling();
        const delay = Math.min(this.maxBackoff, this.backoff * 2 ** this.attempts);
        this.attempts += 1;
        // Jitter: many pages dropped by one restart do not all come back at once.
        this.timer = setTimeout(() => this.open(), delay * (0.5 + Math.random() / 2));
      };
    }
    startPolling() {
      if (this.polling || this.closed) return;
      this.polling = true;
      this.poll(); // at once: whatever changed since the socket last told us
    }
    stopPolling() {
      this.polling = false;
      clearTimeout(this.pollTimer);
    }
    async poll() {
      if (!this.polling) return;
      const status = await this.refresh();
      if (!this.polling || this.closed) return; // the socket is back: it tells us now
      let delay = this.interval;
      if (status === 200 || status === 304) {
        this.setState("polling");
      } else if (status !== null) {
        // The fragment is refused too after the socket was: the page is closed.
        const gone = this.refused && status >= 400 && status < 500;
        this.setState(gone ? "closed" : "reconnecting");
        delay = this.interval * (status === 0 ? 3 : 5); // as the poller backs off
      }
      this.pollTimer = setTimeout(() => this.poll(), delay);
    }
    known(etag) {
      if (etag) this.etag = etag;
    }
    // One conditional GET of the fragment; resolves to its status (0: no answer; a
    // redirect, to the log-in page, counts as 401), or null when one was on its way.
    async refresh() {
      if (this.closed) return null;
      if (this.inFlight) {
        this.again = true; // a change came while fetching: fetch once more after
        return null;
      }
      this.inFlight = true;
      let status = 0;
      try {
        const headers = {"X-Gamenook-Live": "1"};
        if (this.etag) headers["If-None-Match"] = this.etag;
        const response = await fetch(this.url, {headers, cache: "no-store", credentials: "same-origin"});
        status = response.redirected ? 401 : response.status;
        if (status === 200) {
          const etag = response.headers.get("ETag") || "";
          const html = await response.text();
          if (this.onUpdate(html, etag) !== false) this.etag = etag;
        }
      } catch (error) {
        // Offline for a moment: the socket drops too, and its reconnection fetches again.
      } finally {
        this.inFlight = false;
        if (this.again) {
          this.again = false;
          this.refresh();
        }
      }
      return status;
    }
    close() {
      this.closed = true;
      clearTimeout(this.timer);
      clearTimeout(this.openTimer);
      this.stopPolling();
      if (this.ws) this.ws.close(1000);
      this.setState("closed");
    }
  }

  Gamenook.live = {
    transports: {poll: Poller, socket: Socket},
    connect(options) {
      const Transport = Gamenook.live.transports[options.transport || "poll"];
      return new Transport(options);
    },
  };
})();
