// A contest's clock (templates/countdown.templ). The page serves it right;
// this ticks it down from the server's clock (data-now, so a wall display
// with a wrong clock still counts right) and switches phase at each bound
// by itself, knowing them all: opens -> closes -> closed. The reveal's line
// shows while the frozen notice beside it shows: once its time comes it
// says the reveal is under way until the live frames lift the freeze, so
// the words and the standings change together. Nothing is spoken while it
// ticks; a polite region says only that a bound has passed.
(function () {
  "use strict";
  var clocks = document.querySelectorAll("[data-countdown]");
  if (!clocks.length) return;
  var loaded = Date.now();
  var live = !!document.querySelector("[data-live]");
  Array.prototype.forEach.call(clocks, start);

  // remaining words a time left as templates.Remaining does.
  function remaining(ms) {
    var s = Math.max(1, Math.ceil(ms / 1000));
    var d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600), m = Math.floor(s % 3600 / 60), sec = s % 60;
    function pair(a, au, b, bu) { return b === 0 ? a + " " + au : a + " " + au + " " + b + " " + bu; }
    if (d > 0) return pair(d, "d", h, "h");
    if (h > 0) return pair(h, "h", m, "min");
    if (m > 0) return pair(m, "min", sec, "s");
    return sec + " s";
  }

  function iso(ms) { return new Date(ms).toISOString().replace(/\.000Z$/, "Z"); }

  function setText(el, text) { if (el.textContent !== text) el.textContent = text; }

  function start(el) {
    function num(name) { return parseInt(el.getAttribute(name), 10) || 0; }
    // The server's clock minus this browser's (none given: no contest when
    // the page was made, and a window brought later counts by this clock).
    var skew = el.hasAttribute("data-now") ? num("data-now") - loaded : 0;
    var opens = num("data-opens"), closes = num("data-closes"), reveal = num("data-reveal");
    var main = el.querySelector("[data-countdown-main]");
    var mainWords = main.querySelector("[data-countdown-words]");
    var at = main.querySelector("[data-countdown-at]");
    var revealLine = el.querySelector("[data-countdown-reveal]");
    var revealWords = revealLine.querySelector("[data-countdown-words]");
    var revealTime = revealLine.querySelector("time");
    var announce = el.querySelector("[data-countdown-announce]");
    var frozenEl = el.parentNode.querySelector("[data-live-frozen]");
    var phase = el.getAttribute("data-phase");
    var revealShown = !revealLine.hidden;
    var timer = null;

    function now() { return Date.now() + skew; }

    function phaseAt(t) {
      if (opens && t < opens) return "opens";
      if (closes && t >= closes) return "closed";
      return closes ? "closes" : "";
    }

    function say(text) {
      announce.textContent = "";
      setTimeout(function () { announce.textContent = text; }, 50);
    }

    function render() {
      var t = now();
      var p = phaseAt(t);
      if (p !== phase) {
        if (p === "closed") say("The contest has closed.");
        else if (phase === "opens") say("The contest is open.");
        phase = p;
        el.setAttribute("data-phase", p);
      }
      var words = "", instant = 0, text = "";
      if (p === "opens") { words = "Opens in " + remaining(opens - t); instant = opens; text = el.getAttribute("data-opens-text"); }
      else if (p === "closes") { words = "Closes in " + remaining(closes - t); instant = closes; text = el.getAttribute("data-closes-text"); }
      else if (p === "closed") { words = "Closed at"; instant = closes; text = el.getAttribute("data-closes-text"); }
      main.hidden = words === "";
      setText(mainWords, words);
      setText(at, text);
      if (instant) at.setAttribute("datetime", iso(instant));

      var frozen = !!frozenEl && !frozenEl.hidden;
      var show = reveal > 0 && frozen;
      if (revealShown && !frozen) say("The results are revealed."); // not when the reveal is only taken off
      revealShown = show;
      revealLine.hidden = !show;
      if (show) setText(revealWords, t < reveal ? "Results revealed in " + remaining(reveal - t) : "Revealing the results…");
      // A page without live frames cannot hear the freeze lift: it asks
      // the server again once, a moment after the reveal's time.
      if (show && !live && t >= reveal + 2000 && num("data-now") < reveal) { location.reload(); return; }
      schedule(t);
    }

    // The next tick: when the shown seconds change, or soon after a bound.
    function schedule(t) {
      clearTimeout(timer);
      var next = [opens, closes, revealShown ? reveal : 0].filter(function (b) { return b > t; });
      if (!next.length) {
        if (revealShown && !live) timer = setTimeout(render, 1000);
        return;
      }
      var left = Math.min.apply(null, next) - t;
      timer = setTimeout(render, (left % 1000 || 1000) + 20);
    }

    // Frames may show or lift the freeze the reveal's line goes with; a
    // snapshot of this clock's view brings the bounds as they are now (a
    // window moved since the page was made).
    document.addEventListener("podium:frame", function (e) {
      var f = e.detail;
      if (f && f.type === "snapshot" && e.target.contains(el)) {
        var c = f.contest || {};
        opens = c.opens || 0;
        closes = c.closes || 0;
        reveal = c.reveal || 0;
        el.setAttribute("data-opens-text", c.opens_text || "");
        el.setAttribute("data-closes-text", c.closes_text || "");
        if (revealTime) {
          setText(revealTime, c.reveal_text || "");
          if (reveal) revealTime.setAttribute("datetime", iso(reveal));
        }
      }
      render();
    });
    document.addEventListener("visibilitychange", function () { if (!document.hidden) render(); });
    render();
  }
})();
