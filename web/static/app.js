// evacdoc web UI: the little JavaScript the pages use. Pages work without it, except the
// upload. No inline script (the Content-Security-Policy forbids it), no dependencies.
"use strict";

(function () {
  function csrfToken() {
    var meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.getAttribute("content") : "";
  }

  function humanBytes(n) {
    var units = ["KiB", "MiB", "GiB", "TiB"];
    if (n < 1024) return n + " B";
    var v = n / 1024, u = 0;
    while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
    return (v < 10 ? v.toFixed(1) : v.toFixed(0)) + " " + units[u];
  }

  function count(n) {
    return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, "\u2009");
  }

  function readableTime(ts) {
    if (!ts) return "";
    var parts = String(ts).split("T");
    return parts.length === 2 ? parts[0] + " " + parts[1].replace(/Z$/, "") : ts;
  }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        if (k === "text") node.textContent = attrs[k];
        else node.setAttribute(k, attrs[k]);
      });
    }
    (children || []).forEach(function (c) { if (c) node.appendChild(c); });
    return node;
  }

  // "/" focuses the page's search box, unless one is typing somewhere.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
    var t = event.target;
    var typing = t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
    if (typing) return;
    var box = document.querySelector("[data-primary-search]") || document.querySelector("[data-slash-focus]");
    if (!box) return;
    event.preventDefault();
    box.focus();
    box.select();
  });

  // --- Home: the list of analyses, polled while any is going -------------------------

  var table = document.getElementById("analyses");
  var pollTimer = null;

  function progressText(row) {
    var p = row.progress || {};
    if (row.status === "running") {
      if (p.bytes_total > 0) {
        return humanBytes(p.bytes_done) + " of " + humanBytes(p.bytes_total) + " read · " + count(p.files_done) + " files";
      }
      return "unpacking · " + count(p.files_done) + " files read";
    }
    if (row.status === "queued") return "waiting for a free worker";
    return "";
  }

  function indexText(index) {
    if (!index) return "";
    switch (index.state) {
      case "done": return "ready";
      case "running": return "building · " + humanBytes(index.bytes_done) + " indexed";
      case "pending": return "waiting";
      default: return index.error ? "failed: " + index.error : "failed";
    }
  }

  function isLive(row) {
    return row.status === "queued" || row.status === "running" ||
      (row.status === "done" && row.index && (row.index.state === "pending" || row.index.state === "running"));
  }

  function renderRow(row) {
    var status = el("td", null, [el("span", { "class": "badge status-" + row.status, text: row.status })]);
    var progress = progressText(row);
    if (progress) status.appendChild(el("div", { "class": "muted small", text: progress }));
    var p = row.progress || {};
    if (row.status === "running" && p.bytes_total > 0) {
      var pct = Math.floor(Math.min(p.bytes_done, p.bytes_total) * 100 / p.bytes_total);
      status.appendChild(el("progress", { max: "100", value: String(pct), text: pct + " %" }));
    }
    if (row.error) status.appendChild(el("div", { "class": "error-text small", text: row.error }));

    var findings = el("td", { "class": "num" });
    if (row.status === "done") {
      if (row.critical_count > 0) {
        findings.appendChild(el("span", { "class": "badge sev-critical", text: row.critical_count + " critical" }));
        findings.appendChild(document.createTextNode(" "));
      }
      findings.appendChild(el("span", { "class": "count", text: String(row.finding_count) }));
    } else {
      findings.appendChild(el("span", { "class": "muted", text: "–" }));
    }
    var search = el("td", { "class": "small" });
    if (row.status === "done") search.textContent = indexText(row.index);
    else search.appendChild(el("span", { "class": "muted", text: "–" }));

    return el("tr", { "data-id": row.id }, [
      el("td", null, [
        el("a", { href: "/analyses/" + encodeURIComponent(row.id), "class": "strong", text: row.name }),
        el("div", { "class": "muted small", text: humanBytes(row.size_bytes) })
      ]),
      el("td", { "class": "nowrap", text: readableTime(row.created_at) }),
      status,
      findings,
      search
    ]);
  }

  function refreshList() {
    var xhr = new XMLHttpRequest();
    xhr.open("GET", "/api/v1/analyses");
    xhr.setRequestHeader("Accept", "application/json");
    xhr.onload = function () {
      if (xhr.status !== 200) {
        // Signed out meanwhile: the page itself will send to the sign-in page.
        if (xhr.status === 401) window.location.reload();
        return schedule(5000);
      }
      var rows;
      try { rows = JSON.parse(xhr.responseText); } catch (e) { return schedule(5000); }
      var body = table.tBodies[0];
      var fresh = document.createElement("tbody");
      if (rows.length === 0) {
        fresh.appendChild(el("tr", { "class": "empty" }, [el("td", { colspan: "5", text: "No analyses yet: drop a bundle above." })]));
      }
      rows.forEach(function (row) { fresh.appendChild(renderRow(row)); });
      table.replaceChild(fresh, body);
      var live = rows.some(isLive);
      var note = document.getElementById("poll-note");
      if (note) note.textContent = live ? "updating…" : "";
      if (live) schedule(2000);
    };
    xhr.onerror = function () { schedule(5000); };
    xhr.send();
  }

  function schedule(ms) {
    if (pollTimer) window.clearTimeout(pollTimer);
    pollTimer = window.setTimeout(refreshList, ms);
  }

  if (table && table.hasAttribute("data-poll")) schedule(2000);

  // --- Home: drop zone and upload -----------------------------------------------------

  var zone = document.getElementById("dropzone");
  if (!zone) return;
  var input = document.getElementById("file-input");
  var statusBox = document.getElementById("upload-status");
  var bar = document.getElementById("upload-progress");
  var nameOut = document.getElementById("upload-name");
  var figures = document.getElementById("upload-figures");
  var message = document.getElementById("upload-message");
  var maxBytes = Number(zone.getAttribute("data-max-bytes")) || 0;
  var busy = false;

  function say(text, bad) {
    message.textContent = text;
    message.className = bad ? "error-text" : "muted";
  }

  // Files in one upload at most (the service's bound too).
  var MAX_PARTS = 64;

  // One file is sent as it is; several go as one multipart upload, one analysis over
  // all of them (one sosreport per node).
  function upload(list) {
    if (busy || !list || list.length === 0) return;
    var files = Array.prototype.slice.call(list);
    var total = files.reduce(function (sum, f) { return sum + f.size; }, 0);
    statusBox.hidden = false;
    nameOut.textContent = files.length === 1 ? files[0].name
      : files.length + " files: " + files.map(function (f) { return f.name; }).join(", ");
    bar.value = 0;
    if (files.length > MAX_PARTS) {
      figures.textContent = "";
      say("At most " + MAX_PARTS + " files go in one upload.", true);
      return;
    }
    if (maxBytes && total > maxBytes) {
      figures.textContent = humanBytes(total);
      say((files.length === 1 ? "This file is" : "These files are") + " larger than the limit of " + humanBytes(maxBytes) + ".", true);
      return;
    }
    busy = true;
    var started = Date.now();
    var xhr = new XMLHttpRequest();
    var body;
    if (files.length === 1) {
      var file = files[0];
      xhr.open("POST", "/api/v1/analyses?name=" + encodeURIComponent(file.name));
      // The file's own type, so that the service applies its one rule to what the browser
      // knows the file is (a .json or .html is refused as the API refuses it).
      xhr.setRequestHeader("Content-Type", file.type || "application/octet-stream");
      body = file;
    } else {
      xhr.open("POST", "/api/v1/analyses");
      body = new FormData();
      files.forEach(function (f) { body.append("file", f, f.name); });
    }
    xhr.setRequestHeader("x-csrf-token", csrfToken());
    xhr.upload.onprogress = function (e) {
      if (!e.lengthComputable) return;
      var pct = Math.floor(e.loaded * 100 / e.total);
      bar.value = pct;
      var secs = (Date.now() - started) / 1000;
      var rate = secs > 0.5 ? " · " + humanBytes(Math.round(e.loaded / secs)) + "/s" : "";
      figures.textContent = humanBytes(e.loaded) + " of " + humanBytes(e.total) + " (" + pct + " %)" + rate;
      say("Uploading…");
    };
    xhr.upload.onload = function () { bar.value = 100; say("Checksumming and queueing…"); };
    xhr.onload = function () {
      busy = false;
      var answer = {};
      try { answer = JSON.parse(xhr.responseText || "{}"); } catch (e) { answer = {}; }
      if (xhr.status === 202 && answer.id) {
        message.textContent = "";
        message.className = "";
        message.appendChild(document.createTextNode("Uploaded and queued. "));
        message.appendChild(el("a", { href: "/analyses/" + encodeURIComponent(answer.id), text: "Open the analysis →" }));
        if (table) schedule(200);
      } else {
        say("The upload was refused: " + (answer.message || ("HTTP " + xhr.status)), true);
      }
    };
    xhr.onerror = function () { busy = false; say("The upload failed: the connection was lost.", true); };
    xhr.onabort = function () { busy = false; say("The upload was cancelled.", true); };
    xhr.send(body);
  }

  input.addEventListener("change", function () {
    if (input.files && input.files.length > 0) upload(input.files);
    input.value = "";
  });
  ["dragenter", "dragover"].forEach(function (type) {
    zone.addEventListener(type, function (e) { e.preventDefault(); zone.classList.add("over"); });
  });
  ["dragleave", "dragend"].forEach(function (type) {
    zone.addEventListener(type, function (e) {
      if (e.target === zone) zone.classList.remove("over");
    });
  });
  zone.addEventListener("drop", function (e) {
    e.preventDefault();
    zone.classList.remove("over");
    var files = e.dataTransfer && e.dataTransfer.files;
    if (files && files.length > 0) upload(files);
  });
  // Dropping a file outside the zone must not navigate away from the page.
  window.addEventListener("dragover", function (e) { e.preventDefault(); });
  window.addEventListener("drop", function (e) { e.preventDefault(); });
})();
