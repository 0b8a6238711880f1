// evacdoc: the search histogram brushed to zoom. A drag across its bars searches within
// the dragged range; a click without a drag still follows the one bar's link.
(function () {
  "use strict";
  var svg = document.querySelector("svg.histogram[data-search]");
  if (!svg) return;
  var bars = svg.querySelectorAll("a[data-from]");
  if (!bars.length) return;
  var start = null, dragged = false, swallow = false, band = null;

  // The bar under the pointer's x, the first or last when outside.
  function barAt(event) {
    var box = svg.getBoundingClientRect();
    var i = Math.floor((event.clientX - box.left) / box.width * bars.length);
    return Math.max(0, Math.min(bars.length - 1, i));
  }

  function draw(a, b) {
    var view = svg.viewBox.baseVal, step = view.width / bars.length;
    if (!band) {
      band = document.createElementNS("http://www.w3.org/2000/svg", "rect");
      band.setAttribute("class", "brush");
      band.setAttribute("y", "0");
      band.setAttribute("height", String(view.height));
      svg.appendChild(band);
    }
    band.setAttribute("x", String(Math.min(a, b) * step));
    band.setAttribute("width", String((Math.abs(a - b) + 1) * step));
  }

  svg.addEventListener("mousedown", function (event) {
    if (event.button !== 0) return;
    event.preventDefault(); // no link drag, no text selection
    start = { x: event.clientX, bar: barAt(event) };
    dragged = false;
    swallow = false;
  });

  document.addEventListener("mousemove", function (event) {
    if (!start) return;
    // A few pixels of wobble are still a click.
    if (!dragged && Math.abs(event.clientX - start.x) < 4) return;
    dragged = true;
    draw(start.bar, barAt(event));
  });

  document.addEventListener("mouseup", function (event) {
    if (!start) return;
    var first = start.bar, last = barAt(event);
    start = null;
    if (!dragged) return;
    swallow = true;
    var lo = Math.min(first, last), hi = Math.max(first, last);
    var base = svg.getAttribute("data-search");
    window.location.href = base + (base.indexOf("?") < 0 ? "?" : "&") +
      "from=" + encodeURIComponent(bars[lo].getAttribute("data-from")) +
      "&to=" + encodeURIComponent(bars[hi].getAttribute("data-to"));
  });

  // A drag ending on the bar it began on would also click it: the range wins.
  svg.addEventListener("click", function (event) {
    if (swallow) event.preventDefault();
  }, true);
})();
