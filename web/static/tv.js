// The wall display: one screen (a board in a period) at a time, the next
// every data-every seconds; a clock; and when the screen on show last
// changed. Live updates and reconnecting are live.js's. Once a day, when the
// server answers, the page reloads itself, so a display left on for months
// picks up a new version's script and styles without anyone touching it.
(function () {
  "use strict";
  var main = document.querySelector("[data-tv]");
  if (!main) return;
  var screens = Array.prototype.slice.call(main.querySelectorAll(".tv-screen"));
  var dots = main.querySelectorAll(".tv-dots li");
  var every = Math.max(5, parseInt(main.getAttribute("data-every"), 10) || 15) * 1000;
  var clock = main.querySelector("[data-tv-clock]");
  var updatedEl = main.querySelector("[data-tv-updated]");
  var updated = [];
  main.style.setProperty("--rows", parseInt(main.getAttribute("data-rows"), 10) || 10);
  var shown = 0;

  function time(d, seconds) {
    var opts = { hour: "2-digit", minute: "2-digit" };
    if (seconds) opts.second = "2-digit";
    return d.toLocaleTimeString([], opts);
  }

  function show(i) {
    screens[shown].hidden = true;
    if (dots[shown]) dots[shown].classList.remove("on");
    shown = i;
    screens[shown].hidden = false;
    if (dots[shown]) dots[shown].classList.add("on");
    renderUpdated();
  }

  function renderUpdated() {
    var d = updated[shown];
    updatedEl.textContent = d ? "Updated " + time(d, true) : "";
  }

  main.addEventListener("podium:frame", function (e) {
    var i = screens.indexOf(e.target);
    if (i < 0) return;
    updated[i] = new Date();
    if (i === shown) renderUpdated();
  });

  function tick() {
    var now = new Date();
    clock.textContent = time(now, false);
    clock.dateTime = now.toISOString();
  }
  tick();
  setInterval(tick, 1000);
  if (screens.length > 1) setInterval(function () { show((shown + 1) % screens.length); }, every);

  var DAY = 24 * 3600 * 1000;
  function refresh() {
    fetch("/readyz", { cache: "no-store" }).then(function (r) {
      if (r.ok) location.reload();
      else setTimeout(refresh, 60000);
    }, function () { setTimeout(refresh, 60000); });
  }
  setTimeout(refresh, DAY);
})();
