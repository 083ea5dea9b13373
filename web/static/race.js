// The race page's chart follows the standings: live.js fires
// "podium:frame" for each frame of the top's live view, and this fetches
// the chart again (the server draws it), at most one fetch at a time and
// one a second, so a burst of writes costs one re-draw. The page works
// without it: the chart is as of the page's load.
(function () {
  "use strict";
  var fig = document.querySelector("[data-race-chart]");
  if (!fig || !window.fetch) return;
  var src = fig.getAttribute("data-race-src");
  var GAP = 1000;
  var busy = false, again = false, last = 0;

  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    again = false;
    setTimeout(function () {
      last = Date.now();
      fetch(src, { credentials: "same-origin", headers: { Accept: "text/html" } })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) { if (html !== null) swap(html); })
        .catch(function () { /* the next frame tries again */ })
        .then(function () {
          busy = false;
          if (again) refresh();
        });
    }, Math.max(0, last + GAP - Date.now()));
  }

  // swap puts the new chart in place, keeping the table open if it was and
  // the keyboard's focus where it was.
  function swap(html) {
    var details = fig.querySelector("details");
    var open = details && details.open;
    var active = document.activeElement;
    var focus = active && fig.contains(active) ? active.getAttribute("data-race-focus") : null;
    fig.innerHTML = html;
    var d = fig.querySelector("details");
    if (open && d) d.open = true;
    if (focus) {
      var el = fig.querySelector('[data-race-focus="' + focus + '"]');
      if (el) el.focus();
    }
  }

  document.addEventListener("podium:frame", refresh);
})();
