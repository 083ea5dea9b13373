// Small progressive enhancements; every page works without this file.
(function () {
  "use strict";
  // Copy buttons: <button data-copy="id-of-textarea">.
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("[data-copy]");
    if (!b) return;
    var src = document.getElementById(b.getAttribute("data-copy"));
    if (!src) return;
    var done = function () {
      var label = b.textContent;
      b.textContent = "Copied";
      setTimeout(function () { b.textContent = label; }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(src.value).then(done);
    } else {
      src.select();
      document.execCommand("copy");
      done();
    }
  });
  // Show copy buttons only where they can work.
  document.querySelectorAll("[data-copy]").forEach(function (b) { b.hidden = false; });
  // Print buttons: <button data-print> (a sheet of personal links).
  document.querySelectorAll("[data-print]").forEach(function (b) {
    b.hidden = false;
    b.addEventListener("click", function () { window.print(); });
  });
  // The board form reads a contest's times in the zone its Time zone field
  // names: the contest's help says which, as it is typed.
  var zone = document.getElementById("time_zone");
  var zoneName = document.querySelector("[data-zone-name]");
  if (zone && zoneName) {
    zone.addEventListener("input", function () { zoneName.textContent = zone.value.trim() || "UTC"; });
  }
  // A form sent back with errors starts at its error summary (autofocus does
  // this where a browser honours it on a non-control).
  var summary = document.querySelector(".error-summary");
  if (summary && (!document.activeElement || document.activeElement === document.body)) summary.focus();
})();
