// Live updates for a server-rendered standings table. The page works without
// this script; with it, a WebSocket streams the view (a snapshot, then diffs)
// and rows slide to their new places, changed scores flash, arrows show how
// far a member moved, new members fade in and leavers fade out.
(function () {
  "use strict";
  var root = document.querySelector("[data-live]");
  if (!root || !("WebSocket" in window)) return;

  var query = root.getAttribute("data-live");
  var hrefBase = root.getAttribute("data-live-href") || "";
  var newTab = root.hasAttribute("data-live-newtab");
  var me = root.getAttribute("data-live-me") || "";
  var motion = !(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
  var table = root.querySelector("table.standings");
  var tbody = table && table.tBodies[0];
  var statusEl = root.querySelector("[data-live-status]");
  var countEl = root.querySelector("[data-live-count]");
  var emptyEl = root.querySelector("[data-live-empty]");
  var announceEl = root.querySelector("[data-live-announce]");
  var headlineEl = document.querySelector("[data-live-headline]");
  if (!tbody) return;

  var state = null; // the last snapshot: {period, key, title, total, offset, rows}
  var ws = null;
  var attempt = 0;
  var retry = null;
  var MOVE_MS = 450;

  function setStatus(name, text) {
    if (!statusEl) return;
    statusEl.hidden = false;
    statusEl.setAttribute("data-state", name);
    statusEl.querySelector(".label").textContent = text;
  }

  function connect() {
    retry = null;
    var proto = location.protocol === "https:" ? "wss:" : "ws:";
    ws = new WebSocket(proto + "//" + location.host + "/live?" + query);
    ws.onopen = function () {
      attempt = 0;
      setStatus("live", "Live");
    };
    ws.onmessage = function (e) {
      var f;
      try { f = JSON.parse(e.data); } catch (err) { return; }
      if (f.type === "snapshot") applySnapshot(f);
      else if (f.type === "diff" && state) applyDiff(f);
    };
    ws.onclose = function (e) {
      ws = null;
      if (e.code === 1008) { // the server refused this view for good
        setStatus("offline", "Offline");
        return;
      }
      schedule();
    };
  }

  // Reconnect with exponential backoff and jitter, so a restart does not
  // bring every browser back in the same instant.
  function schedule() {
    if (retry) return;
    attempt++;
    var base = Math.min(30000, 500 * Math.pow(2, attempt - 1));
    var delay = base / 2 + Math.random() * base / 2;
    if (navigator.onLine === false) setStatus("offline", "Offline");
    else setStatus("reconnecting", "Reconnecting…");
    retry = setTimeout(connect, delay);
  }

  window.addEventListener("online", function () {
    if (!ws) { clearTimeout(retry); retry = null; connect(); }
  });
  window.addEventListener("offline", function () { setStatus("offline", "Offline"); });

  function applySnapshot(f) {
    state = { period: f.period, key: f.key, title: f.title, total: f.total, offset: f.offset, missing: !!f.missing, rows: f.rows || [] };
    document.querySelectorAll("[data-live-title]").forEach(function (el) {
      if (el.textContent !== f.title) el.textContent = f.title; // roll-over to a new period
    });
    render();
  }

  function applyDiff(d) {
    var byMember = {};
    state.rows.forEach(function (r) { byMember[r.m] = r; });
    state.rows = d.order.map(function (m) { return d.rows[m] || byMember[m]; });
    state.total = d.total;
    state.offset = d.offset;
    state.missing = !!d.missing;
    render();
  }

  function group(n) {
    return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  function ordinal(n) {
    var s = ["th", "st", "nd", "rd"], v = n % 100;
    return n + (s[(v - 20) % 10] || s[v] || s[0]);
  }

  function cell(cls) {
    var td = document.createElement("td");
    td.className = cls;
    return td;
  }

  function createRow(r) {
    var tr = document.createElement("tr");
    tr.setAttribute("data-testid", "row");
    tr.setAttribute("data-member", r.m);
    var rank = cell("rank");
    var badge = document.createElement("span");
    badge.setAttribute("data-testid", "rank");
    rank.appendChild(badge);
    var name = cell("name");
    var a = document.createElement("a");
    a.setAttribute("data-testid", "name");
    a.href = hrefBase + encodeURIComponent(r.m);
    if (newTab) { a.target = "_blank"; a.rel = "noopener"; }
    name.appendChild(a);
    tr.appendChild(rank);
    tr.appendChild(name);
    (r.f || []).forEach(function () { tr.appendChild(cell("field")); });
    var score = cell("score");
    score.setAttribute("data-testid", "score");
    tr.appendChild(score);
    return tr;
  }

  // updateRow writes r into tr; oldRank is what the row showed before.
  function updateRow(tr, r, oldRank) {
    tr.setAttribute("data-rank", r.r);
    var isMe = me && r.m === me;
    tr.classList.toggle("me", !!isMe);
    if (isMe) tr.setAttribute("aria-current", "true"); else tr.removeAttribute("aria-current");
    var rankCell = tr.querySelector("td.rank");
    var badge = rankCell.querySelector("[data-testid=rank]");
    badge.className = "rank-badge" + (r.r >= 1 && r.r <= 3 ? " r" + r.r : "");
    badge.textContent = r.r;
    badge.setAttribute("aria-label", "Rank " + r.r + (r.t ? ", tied" : ""));
    var tied = rankCell.querySelector(".tied");
    if (r.t && !tied) {
      tied = document.createElement("span");
      tied.className = "tied";
      tied.setAttribute("aria-hidden", "true");
      tied.title = "Tied";
      tied.textContent = "=";
      badge.after(tied);
    } else if (!r.t && tied) {
      tied.remove();
    }
    if (oldRank && oldRank !== r.r) showMove(rankCell, oldRank - r.r);
    var a = tr.querySelector("[data-testid=name]");
    if (a.textContent !== r.n) a.textContent = r.n;
    var fields = tr.querySelectorAll("td.field");
    (r.f || []).forEach(function (v, i) { if (fields[i]) fields[i].textContent = v; });
    var score = tr.querySelector("[data-testid=score]");
    if (score.textContent !== r.s) {
      var had = score.textContent !== "";
      score.textContent = r.s;
      if (had) flash(score);
    }
  }

  // showMove puts ▲n or ▼n beside the rank for a few seconds.
  function showMove(rankCell, by) {
    var mv = rankCell.querySelector(".move");
    if (!mv) {
      mv = document.createElement("span");
      rankCell.appendChild(mv);
    }
    mv.className = "move " + (by > 0 ? "up" : "down");
    mv.setAttribute("data-testid", "move");
    mv.textContent = (by > 0 ? "▲" : "▼") + Math.abs(by);
    mv.title = (by > 0 ? "Up " : "Down ") + Math.abs(by);
    clearTimeout(mv._t);
    mv._t = setTimeout(function () { mv.remove(); }, 6000);
  }

  function flash(el) {
    if (!motion) return;
    el.classList.remove("flash");
    void el.offsetWidth; // restart the animation
    el.classList.add("flash");
  }

  function render() {
    var rows = state.rows;
    var existing = {};
    var firstTop = {};
    var oldRank = {};
    Array.prototype.forEach.call(tbody.rows, function (tr) {
      var m = tr.getAttribute("data-member");
      if (!m || tr.classList.contains("leaving")) return;
      existing[m] = tr;
      firstTop[m] = tr.getBoundingClientRect().top;
      oldRank[m] = parseInt(tr.getAttribute("data-rank"), 10);
    });
    var keep = {};
    rows.forEach(function (r) { keep[r.m] = true; });

    // Members leaving the view fade out where they stood, then go.
    Object.keys(existing).forEach(function (m) {
      if (keep[m]) return;
      var tr = existing[m];
      delete existing[m];
      if (!motion) { tr.remove(); return; }
      tr.classList.add("leaving");
      setTimeout(function () { tr.remove(); }, 300);
    });

    var announce = "";
    rows.forEach(function (r) {
      var tr = existing[r.m];
      var fresh = !tr;
      if (fresh) tr = createRow(r);
      updateRow(tr, r, oldRank[r.m]);
      if (fresh && motion && state.seen) tr.classList.add("entering");
      tbody.appendChild(tr);
      if (me && r.m === me && oldRank[r.m] && oldRank[r.m] !== r.r) {
        announce = r.n + (r.r < oldRank[r.m] ? " moved up to " : " moved down to ") + ordinal(r.r) + ", from " + ordinal(oldRank[r.m]) + ".";
      }
    });
    // Leaving rows stay last until they are gone, out of the way of the order.
    Array.prototype.forEach.call(tbody.querySelectorAll("tr.leaving"), function (tr) { tbody.appendChild(tr); });

    // FLIP: rows start where they were and slide to where they are now.
    if (motion) {
      rows.forEach(function (r) {
        var tr = existing[r.m];
        if (!tr || firstTop[r.m] === undefined) return;
        var dy = firstTop[r.m] - tr.getBoundingClientRect().top;
        if (!dy) return;
        tr.style.transition = "none";
        tr.style.transform = "translateY(" + dy + "px)";
        requestAnimationFrame(function () {
          requestAnimationFrame(function () {
            tr.style.transition = "transform " + MOVE_MS + "ms cubic-bezier(.2,.8,.2,1)";
            tr.style.transform = "";
          });
        });
      });
    }
    state.seen = true;

    if (table) table.hidden = rows.length === 0;
    if (emptyEl) emptyEl.hidden = rows.length > 0;
    if (countEl) countEl.textContent = group(state.total) + (state.total === 1 ? " member" : " members");
    if (headlineEl && me) {
      var mine = rows.filter(function (r) { return r.m === me; })[0];
      if (mine) headlineEl.textContent = ordinal(mine.r) + " of " + group(state.total) + " in " + state.title + " · " + mine.s;
    }
    if (announce && announceEl) announceEl.textContent = announce;
  }

  connect();
})();
