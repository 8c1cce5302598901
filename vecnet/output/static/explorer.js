(function () {
  "use strict";
  // The tree explorer of a network or mechanism report: the drawing's edges are the groups
  // with ids edge-<k> (and edge-<k>-tail for the first half of a transducer port), k the
  // edge's position; names only ever reach the page as textContent, formulas through KaTeX
  // (the page's own options: no trust, bounded expansion). A mechanism's explorer shows each
  // edge's details for the report's tree (data.details[k]) and, for any tree swapped to,
  // the coordinates its branches bring; an edge of data.cotreeOnly never becomes a branch.
  var source = document.getElementById("explorer-data");
  if (!source) return;
  var data = JSON.parse(source.textContent);
  var names = data.edges, tails = data.tails, heads = data.heads, count = names.length;
  var status = document.getElementById("explorer-status");
  var treeLine = document.getElementById("explorer-tree");
  var rowTable = document.getElementById("explorer-row");
  var detailsBox = document.getElementById("explorer-details");
  var canSwap = data.swap !== false, details = data.details || null;
  // the branches in the order of the report's matrices (the order the tree was given
  // in; a chord swapped in takes the place of the branch it replaces)
  var branchOrder = [], inTree = [], selected = -1, groups = [];

  function setTree(branches) {
    var k;
    branchOrder = branches.slice();
    for (k = 0; k < count; k++) inTree[k] = false;
    for (k = 0; k < branches.length; k++) inTree[branches[k]] = true;
  }

  function sameTree(branches) {
    if (!branches || branches.length !== branchOrder.length) return false;
    for (var k = 0; k < branches.length; k++) if (!inTree[branches[k]]) return false;
    return true;
  }

  // the branches met walking the current tree from node start to node goal: [edge, +1 where
  // the walk follows the branch's orientation, else -1], found by a breadth-first search
  function treePath(start, goal) {
    var reachedBy = {}, queue = [start], seen = {}, k, node;
    seen[start] = true;
    while (queue.length && !seen[goal]) {
      node = queue.shift();
      for (k = 0; k < count; k++) {
        if (!inTree[k] || (tails[k] !== node && heads[k] !== node)) continue;
        var next = tails[k] === node ? heads[k] : tails[k];
        if (seen[next]) continue;
        seen[next] = true;
        reachedBy[next] = [k, tails[k] === node ? 1 : -1];
        queue.push(next);
      }
    }
    var steps = [];
    for (node = goal; node !== start; ) {
      var step = reachedBy[node];
      steps.unshift(step);
      node = step[1] === 1 ? tails[step[0]] : heads[step[0]];
    }
    return steps;
  }

  // the row of [CI] of a chord (the chord +1, each branch +1 where the circuit, closed
  // through the tree from the chord's head back to its tail, follows it) or of [CU] of a
  // branch (the branch +1, each chord whose circuit holds it with the opposite sign)
  function rowOf(edge) {
    var row = {}, k, steps, i;
    row[edge] = 1;
    if (!inTree[edge]) {
      steps = treePath(heads[edge], tails[edge]);
      for (i = 0; i < steps.length; i++) row[steps[i][0]] = steps[i][1];
      return row;
    }
    for (k = 0; k < count; k++) {
      if (inTree[k]) continue;
      steps = treePath(heads[k], tails[k]);
      for (i = 0; i < steps.length; i++) if (steps[i][0] === edge) row[k] = -steps[i][1];
    }
    return row;
  }

  // columns as in the report's matrices: the branches, then the chords in graph order
  function columns() {
    var order = branchOrder.slice();
    for (var k = 0; k < count; k++) if (!inTree[k]) order.push(k);
    return order;
  }

  function cell(tag, text, className) {
    var element = document.createElement(tag);
    element.textContent = text;
    if (className) element.className = className;
    return element;
  }

  function showRow(edge) {
    while (rowTable.firstChild) rowTable.removeChild(rowTable.firstChild);
    if (edge < 0) return;
    var row = rowOf(edge), order = columns(), split = branchOrder.length;
    var head = document.createElement("tr"), line = document.createElement("tr");
    head.appendChild(cell("th", inTree[edge] ? "[CU]" : "[CI]"));
    line.appendChild(cell("th", names[edge]));
    for (var i = 0; i < order.length; i++) {
      var value = row[order[i]] || 0;
      head.appendChild(cell("th", names[order[i]]));
      var classes = (i === split ? "split " : "") + (value === 0 ? "zero" : "");
      line.appendChild(cell("td", String(value), classes));
    }
    rowTable.appendChild(head);
    rowTable.appendChild(line);
  }

  // a formula typeset by the page's script (or shown as its source without KaTeX)
  function formula(tex) {
    var box = document.createElement("pre");
    box.className = "tex";
    if (window.vecnetPage) window.vecnetPage.render(tex, box);
    else box.textContent = tex;
    return box;
  }

  function heading(text) {
    return cell("h3", text);
  }

  // what the report derived for the edge: its coordinates or constraint rows, its cutset or
  // circuit equations, its terminal equations, a joint's reaction and its sampled values
  function showDetails(edge) {
    if (!detailsBox) return;
    while (detailsBox.firstChild) detailsBox.removeChild(detailsBox.firstChild);
    if (edge < 0 || !details) return;
    var d = details[edge], k, row;
    if (!sameTree(data.trees.user)) {
      detailsBox.appendChild(cell("p", names[edge] + ": " + d.kind + (inTree[edge] ?
        ", a tree branch; coordinates it brings: " + (d.coordinates.length ?
          d.coordinates.join(", ") : "none") + "." : ", a chord.") + " The equations " +
        "below the diagram, and those shown here, are the report's tree's (go back to it " +
        "to see them)."));
      return;
    }
    detailsBox.appendChild(cell("p", names[edge] + ": " + d.kind + (inTree[edge] ?
      ", a tree branch; coordinates it brings: " + (d.coordinates.length ?
        d.coordinates.join(", ") : "none") + "." : ", a chord.")));
    if (inTree[edge]) {
      detailsBox.appendChild(heading("Cutset equations (force and moment balance)"));
      detailsBox.appendChild(formula(d.cutset));
    } else {
      detailsBox.appendChild(heading("Circuit equations (loop closure)"));
      detailsBox.appendChild(formula(d.circuit));
      if (d.constraints.length) {
        detailsBox.appendChild(heading("Constraint rows it brings"));
        var rows = document.createElement("table");
        rows.id = "explorer-constraints";
        rows.className = "listing";
        for (k = 0; k < d.constraints.length; k++) {
          row = document.createElement("tr");
          row.appendChild(cell("th", d.constraints[k][0]));
          var place = document.createElement("td");
          place.title = d.constraints[k][2];
          place.appendChild(formula(d.constraints[k][1]));
          row.appendChild(place);
          rows.appendChild(row);
        }
        detailsBox.appendChild(rows);
      }
    }
    detailsBox.appendChild(heading("Terminal equations"));
    detailsBox.appendChild(formula(d.terminal));
    if (d.reaction) {
      detailsBox.appendChild(heading("Reaction"));
      detailsBox.appendChild(formula(d.reaction));
    }
    if (d.samples) {
      var table = document.createElement("table");
      table.id = "explorer-reaction";
      table.className = "listing";
      var head = document.createElement("tr"), axes = d.samples.force[0].length === 2 ?
        ["x", "y"] : ["x", "y", "z"];
      head.appendChild(cell("th", "t [s]"));
      for (k = 0; k < axes.length; k++) head.appendChild(cell("th", "R" + axes[k] + " [N]"));
      for (k = 0; k < d.samples.torque[0].length; k++) {
        head.appendChild(cell("th", "T" + (d.samples.torque[0].length > 1 ? axes[k] : "") +
          " [N·m]"));
      }
      table.appendChild(head);
      for (var i = 0; i < d.samples.t.length; i++) {
        row = document.createElement("tr");
        row.appendChild(cell("td", String(d.samples.t[i])));
        var values = d.samples.force[i].concat(d.samples.torque[i]);
        for (k = 0; k < values.length; k++) row.appendChild(cell("td", values[k].toPrecision(6)));
        table.appendChild(row);
      }
      detailsBox.appendChild(table);
    }
    if (window.vecnetPage) window.vecnetPage.fit(detailsBox);
  }

  function paint() {
    var row = selected >= 0 ? rowOf(selected) : {};
    for (var k = 0; k < count; k++) {
      for (var j = 0; j < groups[k].length; j++) {
        var list = groups[k][j].classList;
        list.toggle("explorer-branch", inTree[k]);
        list.toggle("explorer-chord", !inTree[k]);
        list.toggle("explorer-plus", row[k] === 1);
        list.toggle("explorer-minus", row[k] === -1);
        list.toggle("explorer-selected", k === selected);
      }
    }
    var branches = [], chords = [];
    for (k = 0; k < branchOrder.length; k++) branches.push(names[branchOrder[k]]);
    for (k = 0; k < count; k++) if (!inTree[k]) chords.push(names[k]);
    var which = sameTree(data.trees.user) ? " (the report's tree)" :
      sameTree(data.trees.normal) ? " (the normal tree)" : "";
    treeLine.textContent = "Tree" + which + ": " + branches.join(", ") + ". Cotree: " +
      chords.join(", ") + "." + (data.brings ? " Coordinates: " + coordinates().join(", ") +
      "." : "");
    showRow(selected);
    showDetails(selected);
  }

  // a mechanism's coordinates for the current tree: those its branches bring, in order
  function coordinates() {
    var all = [];
    for (var k = 0; k < branchOrder.length; k++) {
      all = all.concat(data.brings[branchOrder[k]]);
    }
    return all;
  }

  function describe(edge) {
    return inTree[edge] ?
      names[edge] + " is a branch: its fundamental cutset is highlighted, its row of [CU] below." :
      names[edge] + " is a chord: its fundamental circuit is highlighted, its row of [CI] below.";
  }

  function click(edge) {
    if (edge === selected) {
      selected = -1;
      status.textContent = "Click an edge.";
    } else if (canSwap && selected >= 0 && inTree[edge] !== inTree[selected]) {
      swap(selected, edge);
    } else {
      selected = edge;
      status.textContent = describe(edge);
    }
    paint();
  }

  function swap(first, second) {
    var chord = inTree[first] ? second : first, branch = inTree[first] ? first : second;
    if (data.cotreeOnly && data.cotreeOnly.indexOf(chord) >= 0) {
      status.textContent = "Refused: " + names[chord] + " prescribes a motion or a load " +
        "and is never a branch. Click another edge, or " + names[first] + " again to let go.";
      return;
    }
    if (!rowOf(first)[second]) {
      status.textContent = "Refused: " + (inTree[first] ?
        names[second] + " is not in the fundamental cutset of " + names[first] + ", so making " +
        names[first] + " a chord and " + names[second] + " a branch would disconnect the tree." :
        names[second] + " is not on the fundamental circuit of " + names[first] + ", so making " +
        names[first] + " a branch and " + names[second] + " a chord would leave a circuit in " +
        "the tree.") + " Click a highlighted edge, or " + names[first] + " again to let go.";
      return;
    }
    inTree[chord] = true;
    inTree[branch] = false;
    branchOrder[branchOrder.indexOf(branch)] = chord;
    status.textContent = "Swapped: " + names[chord] + " is now a branch and " + names[branch] +
      " a chord. " + describe(first);
  }

  function restore(branches, message) {
    setTree(branches);
    selected = -1;
    status.textContent = message;
    paint();
  }

  function hitArea(path) {
    // a wide transparent copy of the line, so that a click near it counts
    var copy = path.cloneNode(false);
    copy.removeAttribute("stroke-dasharray");
    copy.setAttribute("class", "explorer-hit");
    path.parentNode.insertBefore(copy, path);
  }

  for (var k = 0; k < count; k++) {
    groups[k] = [];
    var ids = ["edge-" + k + "-tail", "edge-" + k];
    for (var i = 0; i < ids.length; i++) {
      var group = document.getElementById(ids[i]);
      if (!group) continue;
      groups[k].push(group);
      group.classList.add("explorer-edge");
      var path = group.querySelector("path");
      if (path) hitArea(path);
      group.addEventListener("click", click.bind(null, k));
    }
  }
  var buttons = {user: "report's tree", normal: "normal tree"};
  for (var which in buttons) {
    var button = document.getElementById("explorer-" + which);
    if (button && data.trees[which]) {
      button.addEventListener("click", restore.bind(
        null, data.trees[which], "Back to the " + buttons[which] + ". Click an edge."));
    }
  }
  restore(data.trees.user, "Click an edge.");
})();
