/* redstring's graph view (ADR 0045): the data of redstring.export.view_data drawn with
   cytoscape.js. It opens on the most connected entities (a top-N the reader can raise),
   grows by neighbourhood on click, filters by type and source, searches names and aliases,
   and shows an entity's passages with their citations. In a file (mode "file") the data
   is inlined; on the live page (mode "live") it comes from /v1/view with the reader's key,
   and a box runs /v1/ask and /v1/query. Every text is set as text, never as markup. */
(function () {
  "use strict";
  var started = performance.now();
  var body = document.body;
  var MODE = body.dataset.mode;
  var palette = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#46a0a8",
                 "#f032e6", "#9a8a00", "#008080", "#9a6324", "#800000", "#000075"];
  var view = { ready: false, error: null };
  window.redstringView = view;

  function $(id) { return document.getElementById(id); }
  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    if (cls) { node.className = cls; }
    return node;
  }

  function boot(data) {
    var entities = data.entities, passages = data.passages || [];
    var relTypes = data.relationship_types || [];
    var byId = {};
    entities.forEach(function (e, i) { e.index = i; byId[e.id] = e; });
    var adjacency = entities.map(function () { return []; });
    data.relationships.forEach(function (r, i) {
      adjacency[r[0]].push(i);
      if (r[1] !== r[0]) { adjacency[r[1]].push(i); }
    });
    var types = Array.from(new Set(entities.map(function (e) { return e.type; }))).sort();
    var colour = {};
    types.forEach(function (t, i) { colour[t] = palette[i % palette.length]; });
    var hiddenTypes = {};
    var sourceFilter = "";
    var top = Number(body.dataset.top) || 150;
    var shown = {};  // entity index -> true

    $("tenant").textContent = data.tenant;
    $("node-count").textContent = String(entities.length);
    $("top").value = String(top);

    var legend = $("legend");
    legend.textContent = "";
    types.forEach(function (t) {
      var label = el("label");
      var box = el("input");
      box.type = "checkbox"; box.checked = true; box.dataset.type = t;
      box.addEventListener("change", function () {
        if (box.checked) { delete hiddenTypes[t]; } else { hiddenTypes[t] = true; }
        redraw(null);
      });
      var swatch = el("span", "", "swatch");
      swatch.style.background = colour[t];
      label.appendChild(box); label.appendChild(swatch); label.appendChild(document.createTextNode(t));
      legend.appendChild(label);
    });
    var sources = Array.from(new Set([].concat.apply([], entities.map(function (e) { return e.sources; })))).sort();
    var sourceSelect = $("source");
    sources.forEach(function (s) { var o = el("option", s); o.value = s; sourceSelect.appendChild(o); });
    sourceSelect.addEventListener("change", function () { sourceFilter = sourceSelect.value; redraw(null); });

    function eligible(e) {
      return !hiddenTypes[e.type] && (!sourceFilter || e.sources.indexOf(sourceFilter) >= 0);
    }

    function openTop(n) {
      shown = {};
      var count = 0;
      for (var i = 0; i < entities.length && count < n; i++) {  // most connected first
        if (eligible(entities[i])) { shown[i] = true; count++; }
      }
    }

    var cy = cytoscape({
      container: $("graph"),
      elements: [],
      wheelSensitivity: 0.3,
      minZoom: 0.05,
      maxZoom: 4,
      style: [
        { selector: "node", style: {
          "background-color": "data(colour)", "label": "data(label)", "width": "data(size)",
          "height": "data(size)", "font-size": "data(font)", "color": "#111",
          "text-valign": "bottom", "text-margin-y": 2, "text-max-width": "140px",
          "text-wrap": "ellipsis", "border-width": 1, "border-color": "#333",
          "text-background-color": "#fff", "text-background-opacity": 0.7,
          "text-background-padding": 1 } },
        { selector: "node:selected", style: { "border-width": 4, "border-color": "#000" } },
        { selector: "edge", style: {
          "width": 1, "line-color": "#aaa", "target-arrow-color": "#aaa",
          "target-arrow-shape": "triangle", "arrow-scale": 0.6, "curve-style": "haystack",
          "haystack-radius": 0, "label": "", "font-size": 8, "color": "#555" } },
        { selector: "edge.near", style: { "label": "data(type)", "curve-style": "bezier",
          "line-color": "#666", "width": 1.5, "text-rotation": "autorotate" } }
      ]
    });

    function nodeData(e) {
      var size = 10 + Math.min(30, Math.sqrt(e.degree) * 4);
      return { group: "nodes", data: { id: e.id, label: e.name, colour: colour[e.type],
               size: size, font: Math.round(9 + Math.min(7, Math.sqrt(e.degree))) } };
    }

    function edgesAmongShown() {
      var out = [];
      data.relationships.forEach(function (r, i) {
        if (shown[r[0]] && shown[r[1]]) {
          out.push({ group: "edges", data: { id: "r" + i, source: entities[r[0]].id,
                     target: entities[r[1]].id, type: relTypes[r[2]] } });
        }
      });
      return out;
    }

    function counts() {
      $("shown-count").textContent = String(cy.nodes().length);
      $("edge-count").textContent = String(cy.edges().length);
    }

    // Rebuild the drawing from `shown`; new nodes around `around` (an entity index) keep
    // the rest where it is, otherwise the whole drawing is laid out afresh.
    function redraw(around) {
      Object.keys(shown).forEach(function (i) { if (!eligible(entities[i])) { delete shown[i]; } });
      var had = {};
      cy.nodes().forEach(function (n) { had[n.id()] = n.position(); });
      var elements = Object.keys(shown).map(function (i) { return nodeData(entities[i]); });
      cy.batch(function () {
        cy.elements().remove();
        cy.add(elements.concat(edgesAmongShown()));
      });
      if (around !== null && had[entities[around].id]) {
        var centre = had[entities[around].id];
        var fresh = cy.nodes().filter(function (n) { return !had[n.id()]; });
        cy.nodes().forEach(function (n) { if (had[n.id()]) { n.position(had[n.id()]); } });
        var radius = 60 + 8 * fresh.length;
        fresh.forEach(function (n, k) {
          var angle = 2 * Math.PI * k / Math.max(1, fresh.length);
          n.position({ x: centre.x + radius * Math.cos(angle), y: centre.y + radius * Math.sin(angle) });
        });
      } else if (cy.nodes().length) {
        layout(cy.nodes(), cy.edges());
      }
      cy.fit(undefined, 30);
      counts();
    }

    // Fruchterman-Reingold, written out: cytoscape's own "cose" took over 2 s for 150
    // nodes here, this takes a few tens of milliseconds. Seeded, so a page draws alike.
    function layout(nodes, edges) {
      var n = nodes.length, ids = {}, x = new Float64Array(n), y = new Float64Array(n);
      var seed = 7;
      function random() { seed = (seed * 16807) % 2147483647; return seed / 2147483647; }
      var side = 40 * Math.sqrt(n) + 100, k = side / Math.sqrt(n);
      nodes.forEach(function (node, i) { ids[node.id()] = i; x[i] = random() * side; y[i] = random() * side; });
      var links = edges.map(function (edge) { return [ids[edge.source().id()], ids[edge.target().id()]]; });
      var dx = new Float64Array(n), dy = new Float64Array(n), temperature = side / 8;
      for (var step = 0; step < 200; step++) {
        dx.fill(0); dy.fill(0);
        for (var i = 0; i < n; i++) {
          for (var j = i + 1; j < n; j++) {
            var ex = x[i] - x[j], ey = y[i] - y[j], d2 = ex * ex + ey * ey + 0.01;
            var f = k * k / d2;
            dx[i] += ex * f; dy[i] += ey * f; dx[j] -= ex * f; dy[j] -= ey * f;
          }
        }
        for (var l = 0; l < links.length; l++) {
          var a = links[l][0], b = links[l][1];
          var lx = x[a] - x[b], ly = y[a] - y[b], dist = Math.sqrt(lx * lx + ly * ly) + 0.01;
          var pull = dist / k;
          dx[a] -= lx * pull; dy[a] -= ly * pull; dx[b] += lx * pull; dy[b] += ly * pull;
        }
        for (var m = 0; m < n; m++) {
          // a weak pull to the centre keeps components that share no edge on the page
          dx[m] -= (x[m] - side / 2) * 0.02 * k; dy[m] -= (y[m] - side / 2) * 0.02 * k;
          var length = Math.sqrt(dx[m] * dx[m] + dy[m] * dy[m]) + 0.01;
          var move = Math.min(length, temperature);
          x[m] += dx[m] / length * move; y[m] += dy[m] / length * move;
        }
        temperature *= 0.975;
      }
      cy.batch(function () { nodes.forEach(function (node, i) { node.position({ x: x[i], y: y[i] }); }); });
    }

    function neighbours(index) {
      var out = [];
      adjacency[index].forEach(function (r) {
        var rel = data.relationships[r];
        out.push({ rel: relTypes[rel[2]], other: rel[0] === index ? rel[1] : rel[0],
                   outgoing: rel[0] === index });
      });
      return out;
    }

    function expand(index) {
      shown[index] = true;
      neighbours(index).forEach(function (n) { if (eligible(entities[n.other])) { shown[n.other] = true; } });
      redraw(index);
    }

    function highlight(id) {
      cy.elements().unselect();
      cy.edges().removeClass("near");
      var node = cy.getElementById(id);
      if (node.length) { node.select(); node.connectedEdges().addClass("near"); }
    }

    function show(index) {
      var e = entities[index];
      var box = $("details");
      box.textContent = "";
      var heading = el("h2", e.name); heading.id = "details-name"; box.appendChild(heading);
      box.appendChild(el("div", e.type + " · " + e.degree + " relationships", "muted"));
      box.appendChild(el("h3", "Aliases"));
      if (e.aliases.length) {
        var aliases = el("ul");
        e.aliases.forEach(function (a) { aliases.appendChild(el("li", a)); });
        box.appendChild(aliases);
      } else { box.appendChild(el("div", "none", "muted")); }
      var attributes = Object.keys(e.attributes || {});
      if (attributes.length) {
        box.appendChild(el("h3", "Attributes"));
        var list = el("ul");
        attributes.sort().forEach(function (k) { list.appendChild(el("li", k + ": " + JSON.stringify(e.attributes[k]))); });
        box.appendChild(list);
      }
      var related = neighbours(index);
      box.appendChild(el("h3", "Relationships (" + related.length + ")"));
      var relations = el("ul"); relations.id = "relations";
      related.slice(0, 200).forEach(function (n) {
        var other = entities[n.other];
        var text = n.outgoing ? n.rel + " → " + other.name : other.name + " → " + n.rel;
        var item = el("li", text);
        item.addEventListener("click", function () { select(other.id); });
        relations.appendChild(item);
      });
      box.appendChild(relations);
      box.appendChild(el("h3", "Sources"));
      var list2 = el("ul");
      e.sources.forEach(function (s) { list2.appendChild(el("li", s)); });
      box.appendChild(e.sources.length ? list2 : el("div", "none", "muted"));
      box.appendChild(el("h3", "Passages (" + e.passages.length + ")"));
      e.passages.forEach(function (p) {
        var passage = passages[p];
        var block = el("div", "", "passage");
        block.appendChild(el("div", passage.source_id + " #" + passage.chunk_index, "cite"));
        block.appendChild(document.createTextNode(passage.text));
        box.appendChild(block);
      });
    }

    function matches(query) {
      var q = query.trim().toLowerCase();
      if (!q) { return []; }
      return entities.filter(function (e) {
        return e.name.toLowerCase().indexOf(q) >= 0 ||
          e.aliases.some(function (a) { return a.toLowerCase().indexOf(q) >= 0; });
      }).slice(0, 50);
    }

    // Select an entity: drawn (with its neighbours) if it was not, centred, its details shown.
    function select(id) {
      var e = byId[id];
      if (!e) { return; }
      if (!cy.getElementById(id).length) {
        delete hiddenTypes[e.type];
        legend.querySelectorAll("input").forEach(function (b) { if (b.dataset.type === e.type) { b.checked = true; } });
        if (sourceFilter && e.sources.indexOf(sourceFilter) < 0) { sourceFilter = ""; sourceSelect.value = ""; }
        var anchor = null;
        neighbours(e.index).forEach(function (n) { if (anchor === null && shown[n.other]) { anchor = n.other; } });
        shown[e.index] = true;
        redraw(anchor);
      }
      highlight(id);
      cy.center(cy.getElementById(id));
      show(e.index);
    }

    var search = $("search"), results = $("results");
    function renderResults() {
      results.textContent = "";
      matches(search.value).forEach(function (e) {
        var item = el("li", e.name + " (" + e.type + ")");
        item.dataset.id = e.id;
        item.addEventListener("click", function () { select(e.id); });
        results.appendChild(item);
      });
    }
    search.addEventListener("input", renderResults);
    search.addEventListener("keydown", function (event) {
      if (event.key === "Enter") { var found = matches(search.value); if (found.length) { select(found[0].id); } }
    });
    $("top").addEventListener("change", function () {
      var n = Math.max(1, Math.floor(Number($("top").value) || top));
      top = n; openTop(n); redraw(null);
    });
    cy.on("tap", "node", function (event) {
      var e = byId[event.target.id()];
      expand(e.index);
      highlight(e.id);
      show(e.index);
    });

    openTop(top);
    redraw(null);
    view.cy = cy;
    view.data = data;
    view.select = select;
    view.expand = function (id) { expand(byId[id].index); };
    view.matches = matches;
    view.setTop = function (n) { $("top").value = String(n); top = n; openTop(n); redraw(null); };
    view.shown = function () { return cy.nodes().map(function (n) { return n.id(); }); };
    view.loadMs = performance.now() - started;
    // from the start of navigation: reading the page and the library included
    view.readyAt = performance.now();
    view.ready = true;
  }

  // --- the live page: the key, the data, and the question box ---------------------------

  function key() { return $("key").value.trim(); }

  function call(method, path, payload) {
    var options = { method: method, headers: { "Authorization": "Bearer " + key() } };
    if (payload !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(payload);
    }
    return fetch(path, options).then(function (response) {
      return response.json().then(function (body) {
        if (!response.ok) { throw new Error((body && (body.detail || body.title)) || response.statusText); }
        return body;
      });
    });
  }

  function problem(where, error) {
    view.error = String(error.message || error);
    where.textContent = "";
    where.appendChild(el("p", view.error, "error"));
  }

  function passageBlock(passage, marker) {
    var block = el("div", "", "passage");
    block.appendChild(el("div", "[" + marker + "] " + passage.source_id + " #" + passage.chunk_index, "cite"));
    block.appendChild(document.createTextNode(passage.text));
    return block;
  }

  function entityLinks(where, items) {
    if (!items.length || !window.redstringView.select) { return; }
    where.appendChild(el("h3", "Entities"));
    items.slice(0, 10).forEach(function (item) {
      var link = el("div", item.entity.name + " (" + item.entity.type + ")", "entity-link");
      link.addEventListener("click", function () { window.redstringView.select(String(item.entity.id)); });
      where.appendChild(link);
    });
  }

  function ask() {
    var out = $("answer"), question = $("question").value.trim();
    if (!question) { return; }
    out.textContent = "asking…";
    call("POST", "/v1/ask", { question: question }).then(function (answer) {
      out.textContent = "";
      out.appendChild(el("p", answer.text)).id = "answer-text";
      out.appendChild(el("div", "(" + answer.kind + " answer" + (answer.model ? " by " + answer.model : "") + ")", "muted"));
      var byMarker = {};
      answer.context.passages.forEach(function (p) { byMarker[p.marker] = p; });
      out.appendChild(el("h3", "Cited passages (" + answer.citations.length + ")"));
      answer.citations.forEach(function (c) {
        var passage = byMarker[c.marker];
        if (passage) { out.appendChild(passageBlock(passage, c.marker)); }
      });
      entityLinks(out, answer.context.entities);
    }).catch(function (error) { problem(out, error); });
  }

  function query() {
    var out = $("answer"), text = $("question").value.trim();
    if (!text) { return; }
    out.textContent = "searching…";
    call("POST", "/v1/query", { text: text, k: 8 }).then(function (result) {
      out.textContent = "";
      out.appendChild(el("h3", "Passages (" + result.passages.length + ")"));
      result.passages.forEach(function (p) { out.appendChild(passageBlock(p, p.marker)); });
      entityLinks(out, result.entities);
    }).catch(function (error) { problem(out, error); });
  }

  function connect() {
    try { sessionStorage.setItem("redstring-key", key()); } catch (ignored) { /* private mode */ }
    $("details").textContent = "loading…";
    call("GET", "/v1/view").then(function (data) {
      $("details").textContent = "";
      $("details").appendChild(el("p", "Click an entity to see its passages and open its neighbours.", "muted"));
      boot(data);
    }).catch(function (error) { problem($("details"), error); });
  }

  if (MODE === "live") {
    try { $("key").value = sessionStorage.getItem("redstring-key") || ""; } catch (ignored) { /* none */ }
    $("connect").addEventListener("click", connect);
    $("key").addEventListener("keydown", function (event) { if (event.key === "Enter") { connect(); } });
    $("run-ask").addEventListener("click", ask);
    $("run-query").addEventListener("click", query);
    $("question").addEventListener("keydown", function (event) { if (event.key === "Enter") { ask(); } });
    if (key()) { connect(); }
  } else {
    boot(JSON.parse($("graph-data").textContent));
  }
})();
