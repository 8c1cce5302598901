// The vecnet studio's page: it draws the graph and sends edits; vecnet computes every
// matrix, tree and equation (vecnet/web/view.py). Names reach the page as text only
// (textContent, attributes set one by one): nothing from a model becomes markup.
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var token = JSON.parse(document.getElementById("studio-data").textContent).token;
  var state = {document: null, tree: null, positions: {}, catalogue: [], view: null,
               mode: "node", picked: [], selected: null, transform: null};
  var past = [], future = [];
  var canvas = document.getElementById("canvas");

  function $(id) { return document.getElementById(id); }
  function say(words) { $("message").textContent = words || ""; }
  function element(tag, attributes, text) {
    var node = document.createElementNS(tag === "svg" || /^(g|line|circle|text|path)$/.test(tag)
      ? SVG : "http://www.w3.org/1999/xhtml", tag);
    Object.keys(attributes || {}).forEach(function (k) { node.setAttribute(k, attributes[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function post(path, body) {
    return fetch(path, {method: "POST", headers: {"Content-Type": "application/json",
                 "X-Vecnet-Token": token}, body: JSON.stringify(body)})
      .then(function (response) {
        return response.json().then(function (data) {
          if (!response.ok) throw new Error(data.error || response.statusText);
          return data;
        });
      });
  }
  function download(name, text, kind) {
    var link = element("a", {download: name});
    link.href = URL.createObjectURL(new Blob([text], {type: kind}));
    document.body.appendChild(link);
    link.click();
    link.remove();
  }

  // -- the model and its history ----------------------------------------------------------
  function snapshot() {
    return JSON.stringify({document: state.document, tree: state.tree,
                           positions: state.positions, transform: state.transform});
  }
  function restore(text) {
    var s = JSON.parse(text);
    state.document = s.document; state.tree = s.tree; state.positions = s.positions;
    state.transform = s.transform;
    fillMenu();
  }
  function edit(change) {
    past.push(snapshot());
    future = [];
    change();
    refresh();
  }
  function nodesOf(doc) {
    var seen = [];
    (doc.elements || []).forEach(function (e) {
      (e.nodes || []).forEach(function (n) { if (seen.indexOf(String(n)) < 0) seen.push(String(n)); });
    });
    return seen;
  }
  function place(names) {   // where a node without a place goes: on a circle
    var free = names.filter(function (n) { return !state.positions[n]; });
    free.forEach(function (n, k) {
      var angle = 2 * Math.PI * k / Math.max(free.length, 1);
      state.positions[n] = [300 + 200 * Math.cos(angle), 280 + 200 * Math.sin(angle)];
    });
  }

  // -- asking vecnet --------------------------------------------------------------------------
  function refresh() {
    $("title").textContent = state.document.name || "";
    var outputs = $("outputs").value.split(",").map(function (o) { return o.trim(); })
      .filter(function (o) { return o; });
    var request = {document: state.document, tree: state.tree};
    if (outputs.length) request.outputs = outputs;
    // a model opened without places: laid out by vecnet (Graphviz), once
    if (!Object.keys(state.positions).length || nodesOf(state.document).some(function (n) {
      return !state.positions[n]; })) request.layout = true;
    var asked = ++requests;   // the answer to show is the last one asked for
    if ((state.document.kind === "network" && !(state.document.elements || []).length) ||
        (state.document.kind === "mechanism" && !(state.document.bodies || []).length)) {
      state.view = null;
      draw();
      show();
      document.body.setAttribute("data-ready", String(past.length));
      return Promise.resolve();
    }
    return post("/api/view", request).then(function (view) {
      if (asked !== requests) return;   // a later edit's answer is on its way: this one is stale
      state.view = view;
      say(view.error ? "Tree refused: " + view.error : "");
      if (view.world && state.transform) {   // a mechanism drawn here: to scale, where it is
        Object.keys(view.world).forEach(function (n) {
          if (state.positions[n]) return;
          var owner = n.split(".")[0];
          state.positions[n] = n.indexOf(".") < 0 ? toCanvas(view.world[n])
            : inward(toCanvas(view.world[n]), toCanvas(view.world[owner] || [0, 0]));
        });
      }
      Object.keys(view.layout || {}).forEach(function (n) {
        if (!state.positions[n]) state.positions[n] = view.layout[n];
      });
      place(view.nodes);
      draw();
      show();
      document.body.setAttribute("data-ready", String(past.length));
    }).catch(function (error) {
      if (asked !== requests) return;
      say(error.message);
      document.body.setAttribute("data-ready", String(past.length));
    });
  }
  var requests = 0;

  // -- the plane of a mechanism drawn here: metres to the canvas's pixels and back --------------
  function toCanvas(xy) {
    var t = state.transform;
    return [t.origin[0] + t.scale * xy[0], t.origin[1] - t.scale * xy[1]];
  }
  function toWorld(p) {
    var t = state.transform;
    return [round((p[0] - t.origin[0]) / t.scale), round((t.origin[1] - p[1]) / t.scale)];
  }
  function round(x) { return Math.round(x * 1e4) / 1e4; }
  // a body's point drawn a little towards its centre: a joint's two points are one place,
  // and its edge would have no length to see or click
  function inward(point, centre) {
    var dx = centre[0] - point[0], dy = centre[1] - point[1], length = Math.hypot(dx, dy);
    if (length < 1) return [point[0] + 12, point[1] - 12];
    var step = Math.min(22, length / 3) / length;
    return [point[0] + dx * step, point[1] + dy * step];
  }

  // -- drawing --------------------------------------------------------------------------------
  function draw() {
    while (canvas.firstChild) canvas.removeChild(canvas.firstChild);
    var view = state.view;
    var names = (view ? view.nodes : []).concat(Object.keys(state.positions).filter(function (n) {
      return !view || view.nodes.indexOf(n) < 0;   // placed, not yet on an edge
    }));
    // a tree being picked (refused so far: not yet spanning) is drawn as picked
    var branches = view ? (view.error && Array.isArray(state.tree) ? state.tree : view.branches) : [];
    var edges = view ? view.edges : [];
    var counts = {};
    edges.forEach(function (e) {
      var a = state.positions[e.tail], b = state.positions[e.head];
      if (!a || !b) return;
      var key = [e.tail, e.head].sort().join("\u0000");
      var k = counts[key] = (counts[key] || 0) + 1;
      var dx = b[0] - a[0], dy = b[1] - a[1], length = Math.hypot(dx, dy) || 1;
      var bend = (k % 2 ? 1 : -1) * Math.floor(k / 2) * 18;   // parallel edges apart
      // the normal of the node pair, not of the edge: edges of either direction between the
      // same nodes bend to opposite sides, and each label sits on its edge's outer side
      var turn = key.split("\u0000")[0] === e.tail ? 1 : -1;
      var nx = -dy / length * turn, ny = dx / length * turn, side = bend < 0 ? -1 : 1;
      var ox = nx * bend, oy = ny * bend;
      var group = element("g", {"class": "edge" + (branches.indexOf(e.name) >= 0 ? " branch" : "")
        + (state.selected === e.name ? " selected" : ""), "data-edge": e.name});
      var ends = {x1: a[0] + ox, y1: a[1] + oy, x2: b[0] + ox, y2: b[1] + oy};
      group.appendChild(element("line", ends));
      var hit = element("line", ends);
      hit.setAttribute("class", "hit");
      group.appendChild(hit);
      // the arrow at two thirds, tail to head
      var mx = a[0] + ox + dx * 0.62, my = a[1] + oy + dy * 0.62, ux = dx / length, uy = dy / length;
      group.appendChild(element("path", {d: "M" + (mx + 8 * ux) + "," + (my + 8 * uy) + " L" +
        (mx - 6 * ux - 5 * uy) + "," + (my - 6 * uy + 5 * ux) + " L" + (mx - 6 * ux + 5 * uy) +
        "," + (my - 6 * uy - 5 * ux) + " Z", fill: "#345"}));
      group.appendChild(element("text", {x: a[0] + ox + dx * 0.4 + 10 * side * nx,
                                         y: a[1] + oy + dy * 0.4 + 10 * side * ny + 4,
                                         "text-anchor": side * nx < -0.3 ? "end" : "start"},
                                e.name));
      group.addEventListener("click", function (event) { event.stopPropagation(); clickEdge(e.name); });
      canvas.appendChild(group);
    });
    names.forEach(function (n) {
      var p = state.positions[n];
      if (!p) return;
      var group = element("g", {"class": "node" + (state.picked.indexOf(n) >= 0 ? " picked" : ""),
                                "data-node": n, transform: "translate(" + p[0] + "," + p[1] + ")"});
      group.appendChild(element("circle", {r: 13}));
      group.appendChild(element("text", {x: 15, y: -12}, n));
      group.addEventListener("click", function (event) { event.stopPropagation(); clickNode(n); });
      canvas.appendChild(group);
    });
  }
  function show() {
    var view = state.view;
    $("diagnosis").textContent = view ? view.diagnosis : "Draw a graph: nodes, then edges.";
    var notes = $("notes");
    while (notes.firstChild) notes.removeChild(notes.firstChild);
    ((view && view.warnings) || []).forEach(function (w) { notes.appendChild(element("li", {}, w)); });
    var box = $("matrices");
    while (box.firstChild) box.removeChild(box.firstChild);
    var steps = $("steps");
    while (steps.firstChild) steps.removeChild(steps.firstChild);
    if (!view) return;
    Object.keys(view.matrices).forEach(function (key) {
      box.appendChild(element("h3", {}, view.titles[key]));
      box.appendChild(table(view.matrices[key], key));
    });
    view.steps.forEach(function (step) {
      steps.appendChild(element("h3", {}, step.title));
      var target = element("div", {"class": "step"});
      try {
        katex.render(step.latex, target, {displayMode: true, throwOnError: false,
                                          trust: false, strict: "ignore", maxExpand: 1000});
      } catch (error) { target.textContent = step.latex; }
      steps.appendChild(target);
    });
  }
  function table(m, key) {
    var t = element("table", {"class": "matrix", "data-matrix": key});
    var head = element("tr");
    head.appendChild(element("th"));
    m.columns.forEach(function (c, j) {
      var cell = element("th", {"data-column": c}, c);
      if (m.split !== null && j === m.split) cell.setAttribute("class", "bar");
      head.appendChild(cell);
    });
    t.appendChild(head);
    m.rows.forEach(function (r, i) {
      var row = element("tr", {"data-row": r});
      row.appendChild(element("th", {}, r));
      m.values[i].forEach(function (x, j) {
        var classes = [x > 0 ? "plus" : x < 0 ? "minus" : ""];
        if (m.split !== null && j === m.split) classes.push("bar");
        if (state.selected && (r === state.selected || m.columns[j] === state.selected)) classes.push("hot");
        row.appendChild(element("td", {"class": classes.join(" ").trim(), "data-column": m.columns[j]},
                                String(x)));
      });
      t.appendChild(row);
    });
    return t;
  }

  // -- edits ----------------------------------------------------------------------------------
  function freshName(prefix, taken) {
    var k = 1;
    while (taken.indexOf(prefix + k) >= 0) k += 1;
    return prefix + k;
  }
  canvas.addEventListener("click", function (event) {
    var box = canvas.getBoundingClientRect();
    var here = [event.clientX - box.left, event.clientY - box.top];
    if (state.document.kind === "mechanism") return mechanismClick(here);
    if (state.mode !== "node") return;
    var taken = nodesOf(state.document).concat(Object.keys(state.positions));
    var name = taken.indexOf("g") < 0 ? "g" : freshName("n", taken);
    edit(function () { state.positions[name] = here; });
  });
  // a mechanism: a click places a body (Add node), or the joint of the two nodes picked
  function mechanismClick(here) {
    var doc = state.document;
    if (!state.transform) state.transform = {scale: 100, origin: [300, 280]};
    if (state.mode === "node") {
      var name = freshName("body", (doc.bodies || []).map(function (b) { return b.name; }));
      edit(function () {
        doc.bodies.push({name: name, mass: Number($("mass").value) || 1,
                         inertia: Number($("inertia").value) || 0.1, position: toWorld(here),
                         angle: 0, points: {}});
        state.positions[name] = here;
        state.tree = null;
      });
    } else if (state.mode === "edge" && state.picked.length === 2) {
      var joint = freshName("P", (doc.joints || []).map(function (j) { return j.name; }));
      var at = toWorld(here), picked = state.picked;
      state.picked = [];
      edit(function () {
        var ends = picked.map(function (node) {
          var body = node.split(".")[0];
          if (body === "ground") {
            doc.ground = doc.ground || {};
            doc.ground.points = doc.ground.points || {};
            doc.ground.points[joint] = at;
          } else {   // the point in the body's own axes: R(-angle) (at - centre)
            var entry = doc.bodies.filter(function (b) { return b.name === body; })[0];
            var centre = state.view && state.view.world && state.view.world[body] || entry.position;
            var angle = state.view && state.view.angles && state.view.angles[body] || 0;
            var dx = at[0] - centre[0], dy = at[1] - centre[1], c = Math.cos(angle), s = Math.sin(angle);
            entry.points = entry.points || {};
            entry.points[joint] = [round(c * dx + s * dy), round(-s * dx + c * dy)];
          }
          state.positions[body + "." + joint] = inward(here, state.positions[body] || toCanvas([0, 0]));
          return body + "." + joint;
        });
        doc.joints = doc.joints || [];
        doc.joints.push({type: $("type").value, name: joint, between: ends});
        state.tree = null;
      });
    }
  }
  function clickNode(n) {
    if (state.mode === "edge" && state.document.kind === "mechanism") {
      state.picked = state.picked.concat([n]).slice(-2);
      $("hint").textContent = state.picked.length === 2
        ? "Click where the joint is." : "Click the other node the joint joins.";
      draw();
    } else if (state.mode === "edge" && state.document.kind === "network") {
      state.picked.push(n);
      var kind = selectedType();
      if (state.picked.length < kind.nodes) { draw(); return; }
      var nodes = state.picked.slice(0, kind.nodes);
      state.picked = [];
      addEdge(kind, nodes);
    } else if (state.mode === "delete" && state.document.kind === "network") {
      edit(function () {
        state.document.elements = state.document.elements.filter(function (e) {
          return e.nodes.map(String).indexOf(n) < 0;
        });
        delete state.positions[n];
      });
    }
  }
  function addEdge(kind, nodes) {
    var taken = state.document.elements.map(function (e) { return e.name; });
    var name = $("name").value.trim() || freshName(kind.type.replace(/[^A-Z]/g, "") || "E", taken);
    var parameters = {};
    kind.parameters.forEach(function (p) {
      var field = document.querySelector('#parameters input[data-parameter="' + p + '"]');
      var text = field ? field.value.trim() : "";
      if (text === "") return;
      if (text.charAt(0) === "[") {   // a matrix (coupled windings): JSON of numbers and names
        try { parameters[p] = JSON.parse(text); } catch (error) { parameters[p] = text; }
      } else {
        parameters[p] = isNaN(Number(text)) ? text : Number(text);   // a number, or a symbol
      }
    });
    var fields = {};
    Object.keys(kind.fields).forEach(function (f) {
      var field = document.querySelector('#parameters input[data-field="' + f + '"]');
      fields[f] = field ? field.value.trim() : kind.fields[f];
    });
    $("name").value = "";
    edit(function () {
      var entry = {type: kind.type, name: name, nodes: nodes};
      Object.keys(fields).forEach(function (f) { entry[f] = fields[f]; });
      if (Object.keys(parameters).length) entry.parameters = parameters;
      // a value that is a name is a symbol: declared, without a number
      (function declare(value) {
        if (Array.isArray(value)) { value.forEach(declare); return; }
        if (typeof value === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) {
          state.document.parameters = state.document.parameters || {};
          if (!(value in state.document.parameters)) state.document.parameters[value] = null;
        }
      })(Object.keys(parameters).map(function (p) { return parameters[p]; }));
      state.document.elements.push(entry);
      if (Array.isArray(state.tree)) state.tree = null;   // a new edge: the tree anew
    });
  }
  function clickEdge(name) {
    if (state.mode === "tree") {
      var branches = Array.isArray(state.tree) ? state.tree.slice()
        : state.view ? state.view.branches.slice() : [];
      var k = branches.indexOf(name);
      if (k >= 0) branches.splice(k, 1); else branches.push(name);
      edit(function () { state.tree = branches; });
    } else if (state.mode === "delete" && state.document.kind === "network") {
      var owner = state.view.edges.filter(function (e) { return e.name === name; })[0].element;
      edit(function () {   // the whole element: a two-port's two edges go together
        state.document.elements = state.document.elements.filter(function (e) { return e.name !== owner; });
        state.tree = null;
      });
    } else {
      state.selected = state.selected === name ? null : name;
      draw();
      show();
    }
  }
  function selectedType() {
    var type = $("type").value;
    return state.catalogue.filter(function (e) { return e.type === type; })[0];
  }
  function fillMenu() {
    var select = $("type");
    while (select.firstChild) select.removeChild(select.firstChild);
    var mechanism = state.document.kind === "mechanism";
    (mechanism ? [{type: "revolute"}] : state.catalogue).forEach(function (e) {
      select.appendChild(element("option", {value: e.type}, e.type));
    });
    select.value = mechanism ? "revolute" : "Resistor";
    fillParameters();
  }
  function fillParameters() {
    var box = $("parameters");
    while (box.firstChild) box.removeChild(box.firstChild);
    if (state.document.kind === "mechanism") {   // a new body's mass and inertia
      [["mass", "1"], ["inertia", "0.1"]].forEach(function (pair) {
        var label = element("label", {}, "body " + pair[0] + " ");
        label.appendChild(element("input", {size: 5, id: pair[0], value: pair[1]}));
        box.appendChild(label);
      });
      return;
    }
    var kind = selectedType();
    if (!kind) return;
    if (state.mode === "edge") $("hint").textContent = "Click its nodes: " + kind.ends + ".";
    kind.parameters.forEach(function (p) {
      var label = element("label", {}, p + " ");
      var value = kind.defaults[p];
      label.appendChild(element("input", {size: 6, "data-parameter": p, value: value === undefined
        ? "1" : typeof value === "object" ? JSON.stringify(value) : String(value)}));
      box.appendChild(label);
    });
    Object.keys(kind.fields).forEach(function (f) {
      var label = element("label", {}, f + " ");
      label.appendChild(element("input", {size: 10, "data-field": f, value: kind.fields[f]}));
      box.appendChild(label);
    });
  }

  // -- the toolbar ------------------------------------------------------------------------
  var hints = {node: "Click on the canvas to place a node.",
               edge: "Click the nodes of the new element: tail, then head (a port's two, then the other's).",
               tree: "Click edges to put them in the tree or take them out.",
               "delete": "Click an edge or a node to delete it."};
  var mechanismHints = {node: "Click to place a body (its mass centre).",
                        edge: "Click the two nodes a joint joins (a body, one of its points, " +
                              "the ground), then where the joint is."};
  Array.prototype.forEach.call(document.querySelectorAll("button.mode"), function (button) {
    button.addEventListener("click", function () {
      state.mode = button.getAttribute("data-mode");
      state.picked = [];
      Array.prototype.forEach.call(document.querySelectorAll("button.mode"), function (b) {
        b.setAttribute("aria-pressed", String(b === button));
      });
      $("hint").textContent = (state.document.kind === "mechanism" && mechanismHints[state.mode])
        || hints[state.mode];
      fillParameters();
      draw();
    });
  });
  $("type").addEventListener("change", fillParameters);
  $("outputs").addEventListener("change", function () { edit(function () {}); });
  $("normal").addEventListener("click", function () { edit(function () { state.tree = "normal"; }); });
  function fresh(doc) {
    edit(function () {
      state.document = doc; state.tree = null; state.positions = {}; state.transform = null;
      if (doc.kind === "mechanism") {
        state.transform = {scale: 100, origin: [300, 280]};
        state.positions.ground = toCanvas([0, 0]);
      }
    });
    fillMenu();
  }
  $("new-network").addEventListener("click", function () {
    fresh({vecnet: "1", kind: "network", name: "network", elements: []});
  });
  $("new-mechanism").addEventListener("click", function () {
    fresh({vecnet: "1", kind: "mechanism", name: "mechanism", gravity: [0, -9.81],
           ground: {points: {}}, bodies: [], joints: []});
  });
  $("undo").addEventListener("click", function () {
    if (!past.length) return;
    future.push(snapshot()); restore(past.pop()); refresh();
  });
  $("redo").addEventListener("click", function () {
    if (!future.length) return;
    past.push(snapshot()); restore(future.pop()); refresh();
  });
  $("save").addEventListener("click", function () {
    var doc = JSON.parse(JSON.stringify(state.document));
    if (Array.isArray(state.tree) && doc.kind === "network") doc.tree = state.tree;
    download((doc.name || "model") + ".json", JSON.stringify(doc, null, 2) + "\n", "application/json");
  });
  $("open").addEventListener("change", function () {
    var file = $("open").files[0];
    if (!file) return;
    file.text().then(function (text) {
      var doc;
      try { doc = JSON.parse(text); } catch (error) { say("not JSON: " + error.message); return; }
      edit(function () {
        state.document = doc; state.tree = null; state.positions = {}; state.transform = null;
      });
      fillMenu();
    });
  });
  $("svg").addEventListener("click", function () {
    download((state.document.name || "graph") + ".svg",
             new XMLSerializer().serializeToString(canvas), "image/svg+xml");
  });
  function fetchAndDownload(path, key, suffix, kind) {
    post(path, {document: state.document, tree: state.tree}).then(function (answer) {
      download((state.document.name || "model") + suffix, answer[key], kind);
    }).catch(function (error) { say(error.message); });
  }
  $("tikz").addEventListener("click", function () {
    fetchAndDownload("/api/tikz", "tikz", ".tex", "text/x-tex");
  });
  $("steps-tex").addEventListener("click", function () {
    fetchAndDownload("/api/steps.tex", "latex", "-steps.tex", "text/x-tex");
  });
  $("steps-json").addEventListener("click", function () {
    if (state.view) download((state.document.name || "model") + "-steps.json",
                             JSON.stringify(state.view.steps, null, 2), "application/json");
  });
  $("report").addEventListener("click", function () {
    post("/api/report", {document: state.document, tree: state.tree}).then(function (answer) {
      window.open(URL.createObjectURL(new Blob([answer.html], {type: "text/html"})), "_blank");
    }).catch(function (error) { say(error.message); });
  });
  $("simulate").addEventListener("click", function () {
    say("Simulating ...");
    post("/api/simulate", {document: state.document, tree: state.tree}).then(function (answer) {
      var image = element("img", {alt: "simulation"});
      image.src = "data:image/svg+xml;base64," + btoa(unescape(encodeURIComponent(answer.svg)));
      var plot = $("plot");
      while (plot.firstChild) plot.removeChild(plot.firstChild);
      plot.appendChild(image);
      say("");
    }).catch(function (error) { say(error.message); });
  });

  // -- start ----------------------------------------------------------------------------------
  post("/api/start", {}).then(function (start) {
    state.document = start.document;
    state.catalogue = start.catalogue;
    fillMenu();
    window.vecnetStudio = {state: state, refresh: refresh};   // for the page's tests
    return refresh();
  }).catch(function (error) { say(error.message); });
})();
