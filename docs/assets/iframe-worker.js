/*
 * Web workers for pages opened from the file system.
 *
 * Browsers refuse to start a Worker whose script is a file:// URL, and the site's search
 * runs in a worker. On such a page this script replaces Worker: the worker's script runs
 * in a hidden iframe, and messages pass between the page and the iframe as events. Over
 * http(s) it does nothing. (The name tells the material theme that a worker shim is
 * present, so that it adds none of its own from the network.)
 */
(function () {
  "use strict";
  if (window.location.protocol !== "file:") {
    return;
  }

  class FrameWorker extends EventTarget {
    constructor(url) {
      super();
      this.onmessage = null;
      this.pending = [];
      this.ready = false;
      this.frame = document.createElement("iframe");
      this.frame.hidden = true;
      this.frame.title = "search";
      (document.body || document.documentElement).appendChild(this.frame);
      const scope = this.frame.contentWindow;
      // the worker's postMessage answers the page
      scope.postMessage = (data) => this.receive(data);
      const script = scope.document.createElement("script");
      script.src = new URL(url, document.baseURI).href;
      script.onload = () => {
        this.ready = true;
        for (const data of this.pending.splice(0)) {
          this.send(data);
        }
      };
      scope.document.head.appendChild(script);
    }

    receive(data) {
      window.setTimeout(() => {
        const event = new MessageEvent("message", { data: data });
        if (typeof this.onmessage === "function") {
          this.onmessage(event);
        }
        this.dispatchEvent(event);
      }, 0);
    }

    send(data) {
      const scope = this.frame.contentWindow;
      scope.dispatchEvent(new scope.MessageEvent("message", { data: data }));
    }

    postMessage(data) {
      if (this.ready) {
        this.send(data);
      } else {
        this.pending.push(data);
      }
    }

    terminate() {
      this.frame.remove();
    }
  }

  window.Worker = FrameWorker;
})();
