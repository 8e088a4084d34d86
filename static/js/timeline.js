// The timeline's axis: show as many of its times as fit the track's width, never two that run
// into each other ("d1 00d1020:00" on a phone). The first and the last time always show; the ones
// between show left to right while each clears the one before. Measured again whenever a track
// changes size (a turned phone, a card opened) and for every timeline htmx brings in.
(function () {
  "use strict";
  const GAP = 6; // px between two times
  const watched = new WeakSet();

  function thin(track) {
    const ticks = Array.from(track.querySelectorAll(".tl-tick"));
    ticks.forEach(function (tick) { tick.hidden = false; });
    if (ticks.length < 3 || !track.clientWidth) return;
    const box = function (tick) { return tick.getBoundingClientRect(); };
    const last = box(ticks[ticks.length - 1]);
    let right = box(ticks[0]).right;
    for (let i = 1; i < ticks.length - 1; i++) {
      const here = box(ticks[i]);
      if (here.left >= right + GAP && here.right + GAP <= last.left) right = here.right;
      else ticks[i].hidden = true;
    }
  }

  const resized = "ResizeObserver" in window
    ? new ResizeObserver(function (entries) { entries.forEach(function (entry) { thin(entry.target); }); })
    : null;

  function watch(root) {
    (root || document).querySelectorAll(".tl-axis .tl-track").forEach(function (track) {
      if (resized && !watched.has(track)) { watched.add(track); resized.observe(track); }
      thin(track);
    });
  }

  document.addEventListener("DOMContentLoaded", function () { watch(document); });
  document.addEventListener("htmx:load", function (event) { watch(event.target); });
})();
