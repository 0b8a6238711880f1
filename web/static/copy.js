// evacdoc: Copy buttons and the bug-tracker panel. A <button data-copy="#target"> copies
// the target's value (or text), a <button data-copy-text> its attribute's text; a <details> holding <textarea data-src> fills them from
// the API when first opened (the redacted text is made on demand, not with every page).
(function () {
  "use strict";

  function copyText(text, done) {
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(fallback(text)); });
    } else {
      done(fallback(text));
    }
  }

  // execCommand works where the asynchronous clipboard is refused (plain http).
  function fallback(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    document.body.removeChild(area);
    return ok;
  }

  // data-copy="#target" copies the target; data-copy-text="…" copies its own text (a log
  // line as Markdown), saying so on the button itself.
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("[data-copy], [data-copy-text]") : null;
    if (!button) return;
    var text = button.getAttribute("data-copy-text");
    if (text === null) {
      var target = document.querySelector(button.getAttribute("data-copy"));
      if (!target) return;
      text = "value" in target ? target.value : target.textContent;
    }
    var note = button.parentNode.querySelector(".copied");
    copyText(text, function (ok) {
      button.setAttribute("data-copied", ok ? "yes" : "no");
      if (note) note.textContent = ok ? "Copied." : "Select the text and copy it by hand.";
      else if (button.hasAttribute("data-copy-text")) button.textContent = ok ? "Copied" : "Copy failed";
    });
  });

  // The one-step share: make the link through the share API, show it and copy it.
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("[data-share-api]") : null;
    if (!button || button.disabled) return;
    var panel = button.closest(".share-now");
    var note = panel.querySelector(".copied");
    var field = panel.querySelector("input.share-url");
    var meta = document.querySelector('meta[name="csrf-token"]');
    button.disabled = true;
    note.textContent = "Making the link…";
    var xhr = new XMLHttpRequest();
    xhr.open("POST", button.getAttribute("data-share-api"));
    xhr.setRequestHeader("Content-Type", "application/json");
    xhr.setRequestHeader("x-csrf-token", meta ? meta.getAttribute("content") : "");
    xhr.onload = function () {
      var made = null;
      try { made = JSON.parse(xhr.responseText); } catch (e) { made = null; }
      if (xhr.status !== 201 || !made || !made.url) {
        button.disabled = false;
        note.textContent = (made && made.error) || ("The link could not be made (HTTP " + xhr.status + ").");
        return;
      }
      field.value = window.location.origin + made.url;
      field.hidden = false;
      field.select();
      copyText(field.value, function (ok) {
        button.setAttribute("data-copied", ok ? "yes" : "no");
        note.textContent = (ok ? "Copied. " : "Copy it from the box. ") + "It is shown only this once.";
      });
    };
    xhr.onerror = function () { button.disabled = false; note.textContent = "The link could not be made."; };
    xhr.send(JSON.stringify({ scope: JSON.parse(button.getAttribute("data-share-scope")) }));
  });

  function fill(area) {
    if (area.getAttribute("data-loaded")) return;
    area.setAttribute("data-loaded", "loading");
    area.value = "Redacting…";
    var xhr = new XMLHttpRequest();
    xhr.open("GET", area.getAttribute("data-src"));
    xhr.onload = function () {
      if (xhr.status === 200) {
        area.value = xhr.responseText;
        area.setAttribute("data-loaded", "yes");
      } else {
        area.value = "The redacted text could not be made (HTTP " + xhr.status + ").";
        area.removeAttribute("data-loaded");
      }
    };
    xhr.onerror = function () { area.value = "The redacted text could not be loaded."; area.removeAttribute("data-loaded"); };
    xhr.send();
  }

  Array.prototype.forEach.call(document.querySelectorAll("details"), function (details) {
    var areas = details.querySelectorAll("textarea[data-src]");
    if (!areas.length) return;
    function load() { if (details.open) Array.prototype.forEach.call(areas, fill); }
    details.addEventListener("toggle", load);
    load();
  });
})();
