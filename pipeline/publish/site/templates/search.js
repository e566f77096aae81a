"use strict";
(function () {
  var box = document.getElementById("search");
  var list = document.getElementById("results");
  var data = document.getElementById("search-index");
  if (!box || !list || !data) { return; }
  var entries = JSON.parse(data.textContent);
  var safeUrl = /^units\/[a-z0-9-]+\/[a-z0-9-]+\.html$/;
  function show() {
    var query = box.value.trim().toLowerCase();
    while (list.firstChild) { list.removeChild(list.firstChild); }
    if (query.length < 2) { return; }
    var shown = 0;
    for (var i = 0; i < entries.length && shown < 60; i++) {
      var e = entries[i];
      if (e.n.toLowerCase().indexOf(query) < 0 || !safeUrl.test(e.u)) { continue; }
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.setAttribute("href", e.u);
      link.textContent = e.n;
      item.appendChild(link);
      var note = document.createElement("span");
      note.className = "muted";
      note.textContent = " " + e.k + " - " + e.w;
      item.appendChild(note);
      list.appendChild(item);
      shown++;
    }
    if (shown === 0) {
      var none = document.createElement("li");
      none.textContent = "no unit or weapon matches";
      list.appendChild(none);
    }
  }
  box.addEventListener("input", show);
  show();
})();
