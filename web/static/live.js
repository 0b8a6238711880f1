// evacdoc web UI: remediation of a finding (plan, apply behind a typed confirmation,
// progress as server-sent events) and the live watch page. Plain JavaScript, no
// dependencies, no inline script (the Content-Security-Policy forbids it).
"use strict";

(function () {
  function csrfToken() {
    var meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.getAttribute("content") : "";
  }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(c); });
    return node;
  }

  function post(url, body) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "x-csrf-token": csrfToken() },
      body: JSON.stringify(body)
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (json) {
        return { status: response.status, json: json };
      });
    });
  }

  // --- Finding page: plan, confirm, apply, follow -------------------------------------

  // The executor's guard codes (src/recovery/plan.rs PlanError::Guard), as a person reads them.
  var GUARDS = {
    too_many_computes_down: "too many computes down",
    no_scheduler_up: "no nova-scheduler up"
  };

  var box = document.querySelector("[data-remediation-url]");
  if (box) {
    var url = box.getAttribute("data-remediation-url");
    var planForm = box.querySelector("[data-remediation-plan]");
    var applyForm = box.querySelector("[data-remediation-apply]");
    var output = box.querySelector("[data-remediation-output]");
    var progress = box.querySelector("[data-remediation-progress]");

    var choice = function () {
      return {
        cloud: planForm.elements.cloud.value,
        host_fenced: planForm.elements.host_fenced.checked
      };
    };
    var say = function (text, bad) {
      output.textContent = "";
      output.appendChild(el("p", { text: text, class: bad ? "error" : "muted" }));
    };

    planForm.addEventListener("submit", function (event) {
      event.preventDefault();
      var asked = choice();
      asked.apply = false;
      say("Planning (reads only)…");
      post(url, asked).then(function (answer) {
        if (answer.status !== 200) {
          var guard = GUARDS[answer.json.error];
          if (guard) {
            // InstanceHA's safety guards: a refusal to protect the cloud, not a fault.
            output.textContent = "";
            output.appendChild(el("div", { class: "alert bad guard", role: "alert" }, [
              el("strong", { text: "Refused by a safety guard (" + guard + "): " }),
              document.createTextNode(answer.json.message || "")
            ]));
            applyForm.hidden = true;
            return;
          }
          say("No plan: " + (answer.json.message || ("HTTP " + answer.status)), true);
          return;
        }
        var plan = answer.json;
        output.textContent = "";
        (plan.warnings || []).forEach(function (warning) {
          output.appendChild(el("div", { class: "alert warn plan-warning", role: "alert" }, [
            el("strong", { text: "Warning: " }), document.createTextNode(warning)
          ]));
        });
        output.appendChild(el("p", { text: "Plan for " + plan.host + ": " + plan.plan.length +
          " calls, " + plan.moves.length + " instances. Nothing has changed yet." }));
        var list = el("ol", { class: "plan mono small" });
        plan.plan.forEach(function (step) {
          list.appendChild(el("li", {}, [
            el("strong", { text: step.method + " " }), document.createTextNode(step.path),
            el("div", { class: "muted", text: step.why })
          ]));
        });
        output.appendChild(list);
        applyForm.hidden = false;
      }, function () { say("The plan could not be asked for: the connection failed.", true); });
    });

    applyForm.addEventListener("submit", function (event) {
      event.preventDefault();
      var asked = choice();
      asked.apply = true;
      asked.confirm = applyForm.elements.confirm.value.trim();
      post(url, asked).then(function (answer) {
        if (answer.status !== 202) {
          progress.appendChild(el("li", { class: "error", text: "Refused: " +
            (answer.json.message || ("HTTP " + answer.status)) }));
          return;
        }
        applyForm.hidden = true;
        planForm.hidden = true;
        progress.appendChild(el("li", { text: "Recovery " + answer.json.recovery_id + " of " +
          answer.json.host + " started on " + answer.json.cloud + "." }));
        follow(answer.json.events);
      }, function () {
        progress.appendChild(el("li", { class: "error", text: "The connection failed." }));
      });
    });

    var follow = function (eventsUrl) {
      var source = new EventSource(eventsUrl);
      var line = function (text, cls) {
        progress.appendChild(el("li", { class: "mono small " + (cls || ""), text: text }));
      };
      source.addEventListener("step-started", function (e) {
        var d = JSON.parse(e.data);
        line("→ " + d.method + " " + d.path);
      });
      source.addEventListener("step-finished", function (e) {
        var d = JSON.parse(e.data);
        line((d.ok ? "✓ " : "✗ ") + d.method + " " + d.path + (d.error ? ": " + d.error : ""),
          d.ok ? "muted" : "error");
      });
      source.addEventListener("host", function (e) { line(JSON.parse(e.data).message); });
      source.addEventListener("move", function (e) {
        var d = JSON.parse(e.data);
        line(d.name + " (" + d.instance + ") " + d.status + ": " + d.message);
      });
      source.addEventListener("end", function (e) {
        var d = JSON.parse(e.data);
        line("recovery " + d.status + (d.message ? ": " + d.message : ""),
          d.status === "finished" ? "good" : "error");
        source.close();
      });
      source.onerror = function () {
        if (source.readyState === EventSource.CLOSED) line("The progress stream closed.", "error");
      };
    };
  }

  // --- Watch page: findings and decisions as they come ---------------------------------

  var live = document.querySelector("[data-live-events]");
  if (live) {
    var seen = Number(live.getAttribute("data-last-seq") || "0");
    var list = live.querySelector("[data-live-list]");
    var empty = live.querySelector("[data-live-empty]");
    var source = new EventSource(live.getAttribute("data-live-events"));
    var take = function (e) {
      var item = JSON.parse(e.data);
      if (item.seq <= seen) return null;
      seen = item.seq;
      if (empty) empty.hidden = true;
      return item;
    };
    source.addEventListener("finding", function (e) {
      var item = take(e);
      if (!item) return;
      var f = item.data;
      var row = el("li", { class: "live-finding", "data-finding": f.id }, [
        el("p", {}, [
          el("span", { class: "badge sev-" + f.severity, text: f.severity }),
          document.createTextNode(" "),
          el("strong", { text: f.title }),
          el("span", { class: "muted small mono", text: " " + f.id + " · " + item.at })
        ]),
        el("p", { class: "small", text: f.summary }),
        el("ul", { class: "decisions small" })
      ]);
      list.insertBefore(row, list.firstChild);
    });
    source.addEventListener("decision", function (e) {
      var item = take(e);
      if (!item) return;
      var d = item.data;
      var rows = list.querySelectorAll("[data-finding]");
      for (var i = 0; i < rows.length; i++) {
        if (rows[i].getAttribute("data-finding") === d.finding) {
          rows[i].querySelector(".decisions").appendChild(
            el("li", { text: d.action + ": " + d.outcome + " — " + d.detail }));
          return;
        }
      }
    });
  }
})();
