// Tells the page that frames this widget how tall it is, so the iframe can be
// sized without scrollbars (the board page's embed snippet listens for it).
(function () {
  "use strict";
  if (window.parent === window) return;
  var last = 0;
  function report() {
    var h = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (h === last) return;
    last = h;
    window.parent.postMessage({ type: "podium:height", height: h, board: document.body.getAttribute("data-board") }, "*");
  }
  if ("ResizeObserver" in window) new ResizeObserver(report).observe(document.documentElement);
  window.addEventListener("load", report);
  report();
})();
