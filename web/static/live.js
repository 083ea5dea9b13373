// Live updates for a server-rendered standings table. The page works without
// this script; with it, a WebSocket streams the view (a snapshot, then diffs)
// and rows slide to their new places, changed scores flash, arrows show how
// far a member moved, new members fade in and leavers fade out.
//
// Every [data-live] element on the page is a view with its own socket (one
// on most pages; one per screen on the wall display). A page with one view
// lets it update what stands outside it (the period's title elsewhere, the
// recent changes); with several, each keeps to its own element. Each frame
// fires "podium:frame" on its element, the frame as its detail.
(function () {
  "use strict";
  if (!("WebSocket" in window)) return;
  var roots = document.querySelectorAll("[data-live]");
  Array.prototype.forEach.call(roots, function (root) { start(root, roots.length === 1 ? document : root); });

  function start(root, scope) {
    var query = root.getAttribute("data-live");
    // What the rows are, for the count: "member members" or "team teams".
    var nouns = (root.getAttribute("data-live-noun") || "member members").split(" ");
    var hrefBase = root.getAttribute("data-live-href") || "";
    var newTab = root.hasAttribute("data-live-newtab");
    var me = root.getAttribute("data-live-me") || "";
    // A past period: its standings are final, though a correction still shows.
    var closed = root.hasAttribute("data-live-closed");
    var motion = !(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
    var table = root.querySelector("table.standings");
    var tbody = table && table.tBodies[0];
    var statusEl = root.querySelector("[data-live-status]");
    var countEl = root.querySelector("[data-live-count]");
    var emptyEl = root.querySelector("[data-live-empty]");
    var announceEl = root.querySelector("[data-live-announce]");
    // A frozen board's notice: frames set it, and the reveal hides it.
    var frozenEl = root.querySelector("[data-live-frozen]");
    var path = root.getAttribute("data-live-path") || "/live";
    var headlineEl = scope.querySelector("[data-live-headline]");
    var recentEl = scope.querySelector("[data-live-recent]");
    var recentList = recentEl && recentEl.querySelector("ul.activity");
    var recentEmpty = recentEl && recentEl.querySelector("[data-live-recent-empty]");
    var recent = null; // the last recent-changes frame's items
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
      ws = new WebSocket(proto + "//" + location.host + path + "?" + query);
      ws.onopen = function () {
        attempt = 0;
        if (closed) setStatus("closed", "Closed");
        else setStatus("live", "Live");
      };
      ws.onmessage = function (e) {
        var f;
        try { f = JSON.parse(e.data); } catch (err) { return; }
        if (f.type === "snapshot") applySnapshot(f);
        else if (f.type === "diff" && state) applyDiff(f);
        else if (f.type === "recent") { recent = f.items || []; renderRecent(); }
        root.dispatchEvent(new CustomEvent("podium:frame", { bubbles: true, detail: f }));
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
      scope.querySelectorAll("[data-live-title]").forEach(function (el) {
        if (el.textContent !== f.title) el.textContent = f.title; // roll-over to a new period
      });
      setFrozen(f.frozen);
      render();
      renderRecent(); // the period may have rolled over
    }

    function setFrozen(text) {
      if (!frozenEl) return;
      text = text || "";
      var label = frozenEl.querySelector(".label");
      if (label && label.textContent !== text) label.textContent = text;
      frozenEl.hidden = text === "";
    }

    function applyDiff(d) {
      var byMember = {};
      state.rows.forEach(function (r) { byMember[r.m] = r; });
      state.rows = d.order.map(function (m) { return d.rows[m] || byMember[m]; });
      state.total = d.total;
      state.offset = d.offset;
      state.missing = !!d.missing;
      setFrozen(d.frozen);
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
      // A name the board's privacy mode hides (r.a) stands for nobody a
      // link could lead to.
      var a = document.createElement(r.a ? "span" : "a");
      a.setAttribute("data-testid", "name");
      if (!r.a) {
        a.href = hrefBase + encodeURIComponent(r.m);
        if (newTab) { a.target = "_blank"; a.rel = "noopener"; }
      }
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

    // flash marks a cell whose shown value has just changed. The class goes
    // when the animation ends, so moving the row later cannot replay it.
    function flash(el) {
      if (!motion) return;
      el.classList.remove("score-changed");
      void el.offsetWidth; // restart the animation
      el.classList.add("score-changed");
    }
    tbody.addEventListener("animationend", function (e) {
      if (e.target.classList) e.target.classList.remove("score-changed", "entering");
    });

    // place puts el before another child of parent (or last) without taking
    // it out of the document where the browser can help: moveBefore keeps
    // focus, so a link someone has tabbed to stays focused while rows or
    // lines reorder around it.
    function place(parent, el, before) {
      if (el.isConnected && parent.moveBefore) {
        try { parent.moveBefore(el, before); return; } catch (e) { /* fall back */ }
      }
      parent.insertBefore(el, before);
    }

    // focusIn is the element with focus inside parent, if any; refocus gives
    // it focus back, without scrolling, if a move took it away.
    function focusIn(parent) {
      var el = document.activeElement;
      return el && el !== document.body && parent.contains(el) ? el : null;
    }
    function refocus(el) {
      if (el && el.isConnected && document.activeElement !== el) el.focus({ preventScroll: true });
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

      // Rows already in their place stay where they are; only those out of
      // order move, and never through a removal (see place). Whatever moves,
      // the element that had focus gets it back, without scrolling.
      var focused = focusIn(tbody);
      var announce = "";
      var cursor = tbody.firstElementChild;
      rows.forEach(function (r) {
        while (cursor && cursor.classList.contains("leaving")) cursor = cursor.nextElementSibling;
        var tr = existing[r.m];
        var fresh = !tr;
        if (fresh) tr = createRow(r);
        updateRow(tr, r, oldRank[r.m]);
        if (fresh && motion && state.seen) tr.classList.add("entering");
        if (tr === cursor) cursor = cursor.nextElementSibling;
        else place(tbody, tr, cursor);
        if (me && r.m === me && oldRank[r.m] && oldRank[r.m] !== r.r) {
          announce = r.n + (r.r < oldRank[r.m] ? " moved up to " : " moved down to ") + ordinal(r.r) + ", from " + ordinal(oldRank[r.m]) + ".";
        }
      });
      // Leaving rows stay last until they are gone, out of the way of the order.
      Array.prototype.forEach.call(tbody.querySelectorAll("tr.leaving"), function (tr) {
        if (tr.nextElementSibling) place(tbody, tr, null);
      });
      refocus(focused);

      // FLIP: rows start where they were and slide to where they are now,
      // above the rows that stay, and from no further than the table's own
      // edges, so none slides under the header or out of the card.
      if (motion) {
        var body = tbody.getBoundingClientRect();
        rows.forEach(function (r) {
          var tr = existing[r.m];
          if (!tr || firstTop[r.m] === undefined) return;
          var now = tr.getBoundingClientRect();
          var from = Math.max(body.top, Math.min(firstTop[r.m], body.bottom - now.height));
          var dy = from - now.top;
          if (Math.abs(dy) < 1) return;
          tr.classList.add("moving");
          tr.style.transition = "none";
          tr.style.transform = "translateY(" + dy + "px)";
          requestAnimationFrame(function () {
            requestAnimationFrame(function () {
              tr.style.transition = "transform " + MOVE_MS + "ms cubic-bezier(.2,.8,.2,1)";
              tr.style.transform = "";
            });
          });
          clearTimeout(tr._moving);
          tr._moving = setTimeout(function () { tr.classList.remove("moving"); }, MOVE_MS + 50);
        });
      }
      state.seen = true;

      if (table) table.hidden = rows.length === 0;
      if (emptyEl) emptyEl.hidden = rows.length > 0;
      if (countEl) countEl.textContent = group(state.total) + (state.total === 1 ? " " + nouns[0] : " " + nouns[1]);
      if (headlineEl && me) {
        var mine = rows.filter(function (r) { return r.m === me; })[0];
        // data-live-uncounted: the board shows only its top, and not how
        // many there are.
        var of = headlineEl.hasAttribute("data-live-uncounted") ? "" : " of " + group(state.total);
        if (mine) headlineEl.textContent = ordinal(mine.r) + of + " in " + state.title + " · " + mine.s;
      }
      if (announce && announceEl) announceEl.textContent = announce;
    }

    // Recent changes, as the period on screen saw them: a change that did not
    // touch it is left out. Lines already shown stay in place (a link someone
    // has tabbed to keeps focus); new ones come in at the top. Times are
    // relative and kept so.
    function renderRecent() {
      if (!recentList || !recent || !state || recentPaused) return;
      // The period's label (board.Period.String): all time and the rolling
      // windows have no key.
      var key = state.key ? state.period + ":" + state.key : state.period;
      var focused = focusIn(recentList);
      var shown = {};
      Array.prototype.forEach.call(recentList.children, function (li) { if (li._key) shown[li._key] = li; });
      var cursor = recentList.firstElementChild;
      var keep = {};
      var seen = {};
      recent.forEach(function (a) {
        var p = a.p && a.p[key];
        if (!p) return;
        // One call's items share a time, and may name a member twice.
        var base = a.t + ":" + a.m;
        seen[base] = (seen[base] || 0) + 1;
        var id = base + ":" + seen[base];
        var sig = JSON.stringify([a.n, p]);
        var li = shown[id];
        if (!li) {
          li = document.createElement("li");
          li._key = id;
        }
        if (li._sig !== sig) {
          li._sig = sig;
          fillRecent(li, a, p);
        }
        keep[id] = true;
        if (li === cursor) cursor = cursor.nextElementSibling;
        else place(recentList, li, cursor);
      });
      Array.prototype.slice.call(recentList.children).forEach(function (li) {
        if (!li._key || !keep[li._key]) li.remove();
      });
      refocus(focused);
      var n = recentList.children.length;
      recentList.hidden = n === 0;
      if (recentEmpty) recentEmpty.hidden = n > 0;
    }

    function fillRecent(li, a, p) {
      var what = document.createElement("span");
      what.className = "what";
      var link = document.createElement("a");
      link.href = hrefBase + encodeURIComponent(a.m);
      link.textContent = a.n;
      var delta = document.createElement("span");
      delta.className = "delta" + (p.up ? " up" : "") + (p.down ? " down" : "");
      delta.textContent = p.d;
      what.appendChild(link);
      what.appendChild(document.createTextNode(" "));
      what.appendChild(delta);
      var hint = document.createElement("span");
      hint.className = "hint";
      hint.appendChild(document.createTextNode((p.a || "") + " "));
      if (p.r) {
        var rank = document.createElement("span");
        rank.textContent = "· " + p.r;
        hint.appendChild(rank);
        hint.appendChild(document.createTextNode(" "));
      }
      hint.appendChild(document.createTextNode("· "));
      var time = document.createElement("time");
      time.dateTime = new Date(a.t).toISOString();
      time.setAttribute("data-t", a.t);
      time.textContent = ago(a.t);
      hint.appendChild(time);
      li.replaceChildren(what, hint);
    }

    // While focus is in the list, it holds still: on a busy board every line
    // would otherwise pass under the reader in a second. It catches up when
    // focus leaves.
    var recentPaused = false;
    if (recentList) {
      recentList.addEventListener("focusin", function () { recentPaused = true; });
      recentList.addEventListener("focusout", function () {
        // After the move: leaving the window keeps focus on the link.
        setTimeout(function () {
          if (recentList.contains(document.activeElement)) return;
          recentPaused = false;
          renderRecent();
        }, 0);
      });
    }

    var MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    function ago(ms) {
      var s = (Date.now() - ms) / 1000;
      if (s < 45) return "just now";
      if (s < 3600) return Math.round(s / 60) + " min ago";
      if (s < 86400) return Math.round(s / 3600) + " h ago";
      var d = new Date(ms);
      return d.getDate() + " " + MONTHS[d.getMonth()] + " " + String(d.getHours()).padStart(2, "0") + ":" + String(d.getMinutes()).padStart(2, "0");
    }
    if (recentList) {
      setInterval(function () {
        recentList.querySelectorAll("time[data-t]").forEach(function (t) {
          var text = ago(parseInt(t.getAttribute("data-t"), 10));
          if (t.textContent !== text) t.textContent = text;
        });
      }, 15000);
    }

    connect();
  }
})();
