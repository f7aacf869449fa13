// boardq serve: the board in the browser. The server keeps the game; this page draws
// the state it sends (the board, where each action is clicked, the legal actions) and
// sends the clicks back. A record file opened here is read by the server, which sends
// every position; the page steps through them. Routes: boardq/web/app.py.
"use strict";

const SVG = "http://www.w3.org/2000/svg";

// How each game looks (colours only: where things are comes from the server's layout),
// and what wins it (for the help).
const GOALS = {
  tictactoe: "Three of your marks in a row, across, down or diagonally, win.",
  connect_four: "Four of your discs in a row, across, down or diagonally, win.",
  othello: "Place a disc so that it encloses a line of the agent's discs, which turn to yours. A move must turn at least one; with none, you pass. The most discs at the end win.",
  gomoku: "Five or more of your stones in a row, across, down or diagonally, win.",
  hex: "Red joins the red top and bottom edges, blue the blue left and right edges; the first chain across wins (there are no draws).",
  go: "Surround more of the board than the agent: stones with no empty point next to their group are captured. Two passes in a row end the game; komi makes up for moving second.",
};
const LOOKS = {
  tictactoe: { style: "lines", board: "#fbfaf6", line: "#444", colours: ["#1f5fbf", "#c0392b"], names: ["X", "O"] },
  connect_four: { style: "holes", board: "#1f57c3", colours: ["#e53935", "#fdd835"], names: ["red", "yellow"] },
  othello: { style: "squares", board: "#2e7d32", line: "#174d1a", colours: ["#111", "#f4f4f4"], names: ["black", "white"] },
  gomoku: { style: "points", board: "#dcb468", line: "#3b2a12", colours: ["#111", "#f4f4f4"], names: ["black", "white"] },
  go: { style: "points", board: "#dcb468", line: "#3b2a12", colours: ["#111", "#f4f4f4"], names: ["black", "white"] },
  hex: { style: "hexes", board: "#f1ede4", line: "#8a8170", colours: ["#c62828", "#1565c0"], names: ["red", "blue"], edges: true },
};
const DEFAULT_LOOK = { style: "squares", board: "#ece8df", line: "#8a8170", colours: ["#222", "#f4f4f4"], names: ["first", "second"] };

const page = {
  state: null,   // the session's state, as the server sent it
  hints: null,   // {ply, values: {action: value}} for the state shown, or null
  busy: false,
  games: [],
  cursor: null,  // [row, col] of the keyboard's cursor on the board
  keyboard: false,  // the board is being played with the keyboard (the cursor shows)
  replay: null,  // an opened record: {name, data, games, number, record, position}
};

const $ = (id) => document.getElementById(id);

// -- talking to the server ------------------------------------------------------------
async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body instanceof ArrayBuffer) {  // a file's bytes
    options.body = body;
    options.headers["Content-Type"] = "application/octet-stream";
  } else if (body !== undefined) {
    options.body = JSON.stringify(body);
    options.headers["Content-Type"] = "application/json";
  }
  const response = await fetch(path, options);
  let data;
  try {
    data = await response.json();
  } catch (_) {
    data = { error: `the server answered ${response.status}` };
  }
  if (!response.ok) {
    const error = new Error(data.error || `the server answered ${response.status}`);
    error.code = data.code;
    throw error;
  }
  return data;
}

// One request at a time: clicks while the agent thinks are ignored.
async function task(work, note) {
  if (page.busy) return;
  page.busy = true;
  document.body.dataset.phase = "busy";
  showError("");
  showNote("");
  if (note) $("status").textContent = note;
  try {
    await work();
  } catch (e) {
    if (e.code === "unknown_session" && page.state) await startAfresh(e);
    else showError(e.message);
  } finally {
    page.busy = false;
    render();
  }
}

// The server no longer has this page's game (it keeps the games used last): a new
// game of the same game, in the same seat, and a note saying why.
async function startAfresh(cause) {
  const game = page.state.game.name;
  try {
    await receive(await api("POST", "/api/sessions", { game, seat: Number($("seat").value) }));
    showNote("Your last game had expired on the server (it keeps the games played most recently), so a new game has started; the score starts again.");
  } catch (e) {
    showError(`${cause.message}; starting a new game failed too: ${e.message}`);
  }
}

function showNote(text) {
  $("note").textContent = text;
}

function showError(text) {
  $("error").textContent = text;
}

function sessionPath(action) {
  return `/api/sessions/${encodeURIComponent(page.state.session)}${action ? "/" + action : ""}`;
}

async function receive(state) {
  const sameBoard = page.state && page.state.game.name === state.game.name;
  if (!sameBoard) page.cursor = null;
  page.state = state;
  page.hints = null;
  sessionStorage.setItem("boardq-session", state.session);
  if ($("hints").checked && yourTurn()) await fetchHints();
}

async function fetchHints() {
  const answer = await api("GET", sessionPath("hints"));
  const values = {};
  for (const v of answer.values) values[v.action] = v.value;
  page.hints = { ply: answer.ply, values };
}

// A record is open and shown (the board is the record's, not your game's).
const replaying = () => Boolean(page.replay && page.replay.record);
const yourTurn = () => !replaying() && page.state && !page.state.over && page.state.to_move === page.state.you;

// -- what the controls do -------------------------------------------------------------
function startGame(name) {
  const seat = Number($("seat").value);
  task(async () => {
    await receive(await api("POST", "/api/sessions", { game: name, seat }));
  }, "Starting the game (the agent may take a moment to load)…");
}

function move(action) {
  if (!yourTurn() || !page.state.legal.includes(action)) return;
  task(async () => {
    await receive(await api("POST", sessionPath("move"), { action, ply: page.state.ply }));
  }, "The agent is thinking…");
}

function newGame() {
  if (!page.state) return startGame($("game").value);
  task(async () => {
    await receive(await api("POST", sessionPath("new"), { seat: Number($("seat").value) }));
  }, "New game…");
}

function undo() {
  task(async () => receive(await api("POST", sessionPath("undo"))));
}

// The search select's values: "0" (at once), "t:SEC" (a time per move), "v:N" (visits a
// move), "d:D" (a depth).
function setSearch() {
  const [kind, amount] = $("search").value.split(":");
  const body = kind === "d" ? { depth: Number(amount) }
    : kind === "v" ? { visits: Number(amount) } : { move_time: Number(amount || 0) };
  task(async () => receive(await api("POST", sessionPath("search"), body)));
}

function toggleHints() {
  if (!$("hints").checked) {
    page.hints = null;
    render();
    return;
  }
  if (yourTurn()) task(fetchHints, "Asking the agent for its values…");
}

// -- drawing --------------------------------------------------------------------------
function el(name, attributes, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

function lookOf(state) {
  const look = LOOKS[state.game.name];
  if (look) return look;
  const shifted = state.layout.shift.some((s) => s !== 0);
  return { ...DEFAULT_LOOK, style: shifted ? "hexes" : "squares" };
}

// Where cells go: centres in pixels, from the layout's rows, columns and row shifts.
function geometry(layout, look) {
  const widest = layout.cols + Math.max(0, ...layout.shift);
  const size = Math.max(30, Math.min(72, Math.floor(560 / widest)));
  const hexes = look.style === "hexes";
  const rowStep = hexes ? size * 0.866 : size;
  const margin = Math.round(size * 0.7);
  const centre = (r, c) => [margin + (c + layout.shift[r] + 0.5) * size, margin + r * rowStep + size / 2];
  const width = 2 * margin + widest * size;
  const height = 2 * margin + (layout.rows - 1) * rowStep + size;
  return { size, rowStep, margin, centre, width, height, hexes };
}

function hexagon(cx, cy, size) {
  const h = size / Math.sqrt(3);
  const points = [[0, -h], [size / 2, -h / 2], [size / 2, h / 2], [0, h], [-size / 2, h / 2], [-size / 2, -h / 2]];
  return points.map(([x, y]) => `${(cx + x).toFixed(1)},${(cy + y).toFixed(1)}`).join(" ");
}

// The shape of one cell (for its background, its heat and its click target).
function cellShape(g, r, c, attributes, parent) {
  const [cx, cy] = g.centre(r, c);
  if (g.hexes) return el("polygon", { points: hexagon(cx, cy, g.size), ...attributes }, parent);
  const s = g.size;
  return el("rect", { x: cx - s / 2, y: cy - s / 2, width: s, height: s, ...attributes }, parent);
}

function drawBackground(svg, state, look, g) {
  const { rows, cols } = state.layout;
  const s = g.size;
  if (look.style === "points" || look.style === "holes") {
    el("rect", { x: g.margin - 6, y: g.margin - 6, width: g.width - 2 * g.margin + 12,
      height: g.height - 2 * g.margin + 12, rx: 10, fill: look.board }, svg);
  }
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const [cx, cy] = g.centre(r, c);
      if (look.style === "holes") el("circle", { cx, cy, r: s * 0.4, fill: "#fff" }, svg);
      else if (look.style === "squares" || look.style === "hexes") {
        cellShape(g, r, c, { fill: look.board, stroke: look.line, "stroke-width": 1 }, svg);
      }
    }
  }
  if (look.style === "points") {
    for (let r = 0; r < rows; r++) drawLine(svg, g.centre(r, 0), g.centre(r, cols - 1), look.line, 1);
    for (let c = 0; c < cols; c++) drawLine(svg, g.centre(0, c), g.centre(rows - 1, c), look.line, 1);
  }
  if (look.style === "lines") {
    for (let k = 1; k < cols; k++) {
      const x = g.margin + k * s;
      drawLine(svg, [x, g.margin + 6], [x, g.margin + rows * s - 6], look.line, 3);
    }
    for (let k = 1; k < rows; k++) {
      const y = g.margin + k * s;
      drawLine(svg, [g.margin + 6, y], [g.margin + cols * s - 6, y], look.line, 3);
    }
  }
  if (look.edges) drawEdges(svg, state, look, g);
}

function drawLine(svg, [x1, y1], [x2, y2], stroke, width) {
  el("line", { x1, y1, x2, y2, stroke, "stroke-width": width, "stroke-linecap": "round" }, svg);
}

// Hex: the first player joins the top and bottom edges, the second the left and right.
function drawEdges(svg, state, look, g) {
  const { rows, cols } = state.layout;
  const away = g.size * 0.62;
  const edge = (from, to, dx, dy, seat) => {
    const [a, b] = [g.centre(...from), g.centre(...to)];
    drawLine(svg, [a[0] + dx, a[1] + dy], [b[0] + dx, b[1] + dy], look.colours[seat], 5);
  };
  edge([0, 0], [0, cols - 1], 0, -away, 0);
  edge([rows - 1, 0], [rows - 1, cols - 1], 0, away, 0);
  edge([0, 0], [rows - 1, 0], -away, 0, 1);
  edge([0, cols - 1], [rows - 1, cols - 1], away, 0, 1);
}

function drawAxes(svg, state, g) {
  const { layout } = state;
  const byColumn = layout.actions.some((a) => a.kind === "column");
  (layout.col_labels || []).forEach((label, c) => {
    const [x, y] = g.centre(byColumn ? layout.rows - 1 : 0, c);
    const ty = byColumn ? y + g.size * 0.95 : y - g.size * 0.72;
    el("text", { x, y: ty, class: "axis", "text-anchor": "middle" }, svg).textContent = label;
  });
  (layout.row_labels || []).forEach((label, r) => {
    const [x, y] = g.centre(r, 0);
    el("text", { x: x - g.size * 0.8, y: y + 4, class: "axis", "text-anchor": "middle" }, svg).textContent = label;
  });
}

function drawPieces(svg, state, look, g) {
  state.board.forEach((row, r) => row.forEach((seat, c) => {
    if (seat === null) return;
    const [cx, cy] = g.centre(r, c);
    const mark = state.marks[seat];
    if (/^[A-Za-z]$/.test(mark)) {
      const text = el("text", { x: cx, y: cy + g.size * 0.22, "text-anchor": "middle",
        "font-size": g.size * 0.62, "font-weight": 700, fill: look.colours[seat], class: "piece" }, svg);
      text.textContent = mark;
    } else {
      el("circle", { cx, cy, r: g.size * 0.4, fill: look.colours[seat], stroke: "#222",
        "stroke-width": 1, class: "piece", "data-seat": seat }, svg);
    }
  }));
  const cell = state.last && state.last.cell;
  if (cell) el("circle", { cx: g.centre(...cell)[0], cy: g.centre(...cell)[1], r: g.size * 0.46, class: "last" }, svg);
  drawWin(svg, state, g);
}

// The line (or Hex's chain) that won: a band through its cells, each cell ringed.
function drawWin(svg, state, g) {
  if (!state.win || state.win.length === 0) return;
  for (const [r, c] of state.win) {
    const [cx, cy] = g.centre(r, c);
    el("circle", { cx, cy, r: g.size * 0.3, class: "win" }, svg);
  }
}

// The hints' scale, from -1 (a loss for you) through 0 (a draw) to +1 (a win): purple,
// grey, teal, colours no game's pieces or board use.
const HEAT_STOPS = [[-1, [123, 31, 162]], [0, [189, 189, 189]], [1, [0, 131, 143]]];

function heatColour(value) {
  const v = Math.max(-1, Math.min(1, value));
  const [[v0, c0], [v1, c1]] = v <= 0 ? [HEAT_STOPS[0], HEAT_STOPS[1]] : [HEAT_STOPS[1], HEAT_STOPS[2]];
  const t = (v - v0) / (v1 - v0);
  const rgb = c0.map((x, i) => Math.round(x + t * (c1[i] - x)));
  return `rgb(${rgb.join(", ")})`;
}

// Where a move shows its value: its cell, or for a column the cell its piece lands on
// (the lowest empty one; the column's cells come top to bottom).
function heatCell(state, place) {
  if (place.kind !== "column") return place.cells[0];
  const empty = place.cells.filter(([r, c]) => state.board[r][c] === null);
  return empty.length ? empty[empty.length - 1] : place.cells[0];
}

function drawHeat(svg, state, look, g) {
  if (replaying() || !page.hints || page.hints.ply !== state.ply) return;
  const values = page.hints.values;
  const shown = state.layout.actions.filter((p) => values[p.action] !== undefined && p.cells.length);
  const best = Math.max(...shown.map((p) => values[p.action]));
  for (const place of shown) {
    const value = values[place.action];
    const [r, c] = heatCell(state, place);
    const [x, y] = g.centre(r, c);
    const colour = { fill: heatColour(value), "fill-opacity": 0.85, class: "heat" };
    if (look.style === "holes") el("circle", { cx: x, cy: y, r: g.size * 0.4, ...colour }, svg);
    else cellShape(g, r, c, colour, svg);
    if (value === best) el("circle", { cx: x, cy: y, r: g.size * 0.42, class: "best" }, svg);
    el("text", { x, y: y + 4, "text-anchor": "middle", class: "heat-value" }, svg).textContent = value.toFixed(2);
  }
}

// Which action the keyboard's cursor plays: the place whose cells include it.
function placeAt(state, cell) {
  if (!cell) return null;
  return state.layout.actions.find((p) => p.cells.some(([r, c]) => r === cell[0] && c === cell[1])) || null;
}

function drawCursor(svg, state, g) {
  // Shown while the board has the keyboard's focus (not after a click of the mouse).
  const board = $("board");
  const keyboard = board.matches(":focus-visible") || (page.keyboard && document.activeElement === board);
  if (!keyboard || !page.cursor || replaying()) return;
  const place = placeAt(state, page.cursor);
  const attributes = { class: "cursor" };
  if (place && place.kind === "column") {
    const [x, top] = g.centre(...place.cells[0]);
    const bottom = g.centre(...place.cells[place.cells.length - 1])[1];
    el("rect", { x: x - g.size / 2 + 2, y: top - g.size / 2 + 2, width: g.size - 4,
      height: bottom - top + g.size - 4, rx: 6, ...attributes }, svg);
  } else {
    cellShape(g, ...page.cursor, attributes, svg);
  }
}

function drawTargets(svg, state, g) {
  if (!yourTurn() || page.busy) return;
  const legal = new Set(state.legal);
  for (const place of state.layout.actions) {
    if (!legal.has(place.action) || place.cells.length === 0) continue;
    let target;
    if (place.kind === "column") {
      const [x, top] = g.centre(...place.cells[0]);
      const bottom = g.centre(...place.cells[place.cells.length - 1])[1];
      target = el("rect", { x: x - g.size / 2, y: top - g.size / 2, width: g.size,
        height: bottom - top + g.size }, svg);
    } else {
      target = cellShape(g, ...place.cells[0], {}, svg);
    }
    target.setAttribute("class", "target");
    target.setAttribute("data-action", place.action);
    target.setAttribute("data-label", place.label);
    el("title", {}, target).textContent = place.label;
    target.addEventListener("click", () => move(place.action));
  }
}

function drawBoard(state) {
  const board = $("board");
  board.replaceChildren();
  const text = state.layout.kind !== "grid";
  $("textboard").hidden = !text;
  board.hidden = text;
  if (text) {
    $("textboard").textContent = state.board;
    return;
  }
  const look = lookOf(state);
  const g = geometry(state.layout, look);
  const svg = el("svg", { viewBox: `0 0 ${g.width} ${g.height}`, width: g.width, height: g.height,
    role: "img", "aria-label": `${state.game.title} board` });
  drawBackground(svg, state, look, g);
  drawAxes(svg, state, g);
  drawHeat(svg, state, look, g);
  drawPieces(svg, state, look, g);
  drawTargets(svg, state, g);
  drawCursor(svg, state, g);
  board.appendChild(svg);
}

// Moves without a cell (a pass; every move of a game drawn as text) are buttons.
function drawButtons(state) {
  const box = $("buttons");
  box.replaceChildren();
  if (replaying()) return;
  const legal = new Set(state.legal);
  const text = state.layout.kind !== "grid";
  for (const place of state.layout.actions) {
    if (place.kind !== "button" || (text && !legal.has(place.action))) continue;
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.action = place.action;
    const value = page.hints && page.hints.ply === state.ply ? page.hints.values[place.action] : undefined;
    button.textContent = value === undefined ? place.label : `${place.label} (${value.toFixed(2)})`;
    if (value !== undefined) button.style.background = heatColour(value);
    button.disabled = !yourTurn() || page.busy || !legal.has(place.action);
    button.classList.toggle("legal", legal.has(place.action));
    button.addEventListener("click", () => move(place.action));
    box.appendChild(button);
  }
}

function describeSeat(state, seat) {
  const look = lookOf(state);
  const mark = state.marks[seat];
  return look.names[seat] === mark ? mark : `${look.names[seat]} (${mark})`;
}

function statusText(state) {
  if (state.over) return `${state.message} New game to play again.`;
  const turn = `Your move, ${describeSeat(state, state.you)}.`;
  return state.message ? `${state.message} ${turn}` : turn;
}

function render() {
  if (replaying()) {
    renderReplay();
    return;
  }
  const state = page.state;
  document.body.dataset.phase = page.busy ? "busy" : !state ? "idle" : state.over ? "over" : "playing";
  document.body.dataset.result = state && state.result ? state.result : "";
  drawReplayBox();
  setControls(false);
  if (!state) {
    if (!page.busy) $("status").textContent = "Choose a game to play against the agent.";
    return;
  }
  if (!page.busy) $("status").textContent = statusText(state);
  document.title = `${state.game.title} · boardq`;
  $("game").value = state.game.name;
  $("seat").value = String(state.you);
  drawSearch(state);
  drawSave(state);
  drawBoard(state);
  drawButtons(state);
  const s = state.score;
  $("score").textContent = `You ${s.won} · Draws ${s.drawn} · Agent ${s.lost}`;
  $("legend").textContent = `You are ${describeSeat(state, state.you)}; the agent is ${describeSeat(state, 1 - state.you)}.`;
  $("hint-legend").hidden = !(page.hints && page.hints.ply === state.ply);
  drawHelp(state);
  const list = $("moves");
  list.replaceChildren();
  for (const m of state.moves) {
    const item = document.createElement("li");
    item.textContent = `${m.by === "you" ? "you" : "agent"}: ${m.label}`;
    item.className = m.by;
    list.appendChild(item);
  }
  list.scrollTop = list.scrollHeight;
}

// The controls of your game: off while busy, and while a record is open.
function setControls(replaying) {
  const state = page.state;
  const off = page.busy || replaying;
  $("game").disabled = off;
  $("new").disabled = off || !$("game").value;
  $("undo").disabled = off || !state || !state.can_undo;
  $("seat").disabled = off;
  $("hints").disabled = off;
  $("search").disabled = off || !state || state.max_depth === 0;
  $("record-file").disabled = page.busy;
  $("open-label").classList.toggle("disabled", page.busy);
}

// The links that save your game: SGF where the game has it, JSON lines always.
function drawSave(state) {
  const box = $("save");
  box.hidden = state.moves.length === 0;
  box.firstChild.textContent = state.over ? "Save the game: " : "Save the game so far: ";
  for (const format of ["sgf", "jsonl"]) {
    const link = $(`save-${format}`);
    link.hidden = !state.records.includes(format);
    link.href = `${sessionPath("record")}?format=${format}`;
  }
}

// How to play on this page (not the terminal's typing help): what wins, how to move
// with the mouse and the keyboard, and what the controls do.
function drawHelp(state) {
  const box = $("help");
  if (box.dataset.game === state.game.name) return;
  box.dataset.game = state.game.name;
  const kinds = new Set(state.layout.actions.map((p) => p.kind));
  const keys = state.layout.actions.filter((p) => p.kind !== "button" && p.label.length === 1);
  const lines = [];
  if (GOALS[state.game.name]) lines.push(GOALS[state.game.name]);
  if (state.game.komi !== undefined && state.game.komi !== state.game.learnt_komi) {
    lines.push(`Komi ${state.game.komi}: the agent learnt ${state.game.title} with komi ${state.game.learnt_komi}; it plays on, the games counted with ${state.game.komi}.`);
  }
  if (state.layout.kind !== "grid") {
    lines.push("Play a move by pressing its button under the board; the board is the game's own drawing.");
  } else {
    if (kinds.has("column")) lines.push("Click a column to drop your disc into it: it falls to the lowest empty cell.");
    if (kinds.has("cell")) lines.push("Click an empty cell to play there; only legal moves can be clicked.");
    if (kinds.has("button")) lines.push("Pass with the button under the board (only when the rules allow it).");
    const number = keys.length ? ` or press a move's key (${keys[0].label}-${keys[keys.length - 1].label})` : "";
    lines.push(`Keyboard: click the board or Tab to it, move the outlined cursor with the arrow keys, and press Enter or Space to play there${number}.`);
  }
  lines.push("The orange ring marks the last move; at the end, the line that won is ringed in white.");
  lines.push("Hints colour each of your moves by the agent's value of it for you: purple a loss, grey a draw, teal a win (the scale is under the board).");
  lines.push("Undo takes back your last move and the agent's reply; a finished game stays on the score. New game keeps the score; changing your seat starts a new game.");
  if (state.max_depth > 0) {
    lines.push("Agent thinks: how long the agent may search before each move (and for the hints). At once, it plays its network's choice. Given time, it grows a tree of the lines its values find most promising, and plays the move it looked at most: more time, a larger tree and a stronger agent; a move takes about that time (what it found on the last move is kept). The agent of a game is shared by everyone playing it on this server, so a long think can keep another player waiting that long.");
  }
  lines.push("Records: save the game as a file (SGF for Go, Othello, Gomoku and Hex, which Sabaki, GoGui and other programs open; JSON lines for every game), with both players, the result by boardq's rules, the time of every move and the agent's value of its moves; boardq replay FILE steps through it in the terminal.");
  lines.push("Open a record (or drop a record file on the board) to step through it here: boardq's own files, or SGF files of other programs (GNU Go, Sabaki...) of a game boardq plays. Back and Forward (or the arrow keys on the board) step through the moves, Start and End (Home, End) go to either end, a number goes to that move, and a click on a move in the list goes there. Your own game waits meanwhile: Back to your game returns to it.");
  box.replaceChildren(...lines.map((line) => {
    const item = document.createElement("p");
    item.textContent = line;
    return item;
  }));
}

// -- the keyboard ---------------------------------------------------------------------
function onBoardKey(event) {
  if (replaying()) {
    const steps = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -1, ArrowDown: 1 };
    const ends = { Home: 0, End: page.replay.record.moves.length };
    if (event.key in steps) stepTo(page.replay.position + steps[event.key]);
    else if (event.key in ends) stepTo(ends[event.key]);
    else return;
    event.preventDefault();
    return;
  }
  const state = page.state;
  if (!state || state.layout.kind !== "grid") return;
  page.keyboard = true;
  if (!page.cursor) page.cursor = firstCell(state);
  const { rows, cols } = state.layout;
  const moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
  if (moves[event.key]) {
    event.preventDefault();
    const [r, c] = page.cursor || [0, 0];
    const [dr, dc] = moves[event.key];
    page.cursor = [Math.max(0, Math.min(rows - 1, r + dr)), Math.max(0, Math.min(cols - 1, c + dc))];
    render();
    return;
  }
  if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    const place = placeAt(state, page.cursor);
    if (place) move(place.action);
    return;
  }
  const keyed = state.layout.actions.find((p) => p.kind !== "button" && p.label === event.key);
  if (keyed) {
    event.preventDefault();
    page.cursor = [...keyed.cells[keyed.cells.length - 1]];
    move(keyed.action);
  }
}

// The cursor shows when the keyboard brings the focus. A click focuses the board too,
// but drawing then would replace the cell under the mouse before its click lands.
function onBoardFocus() {
  const state = page.state;
  if (replaying() || !state || state.layout.kind !== "grid" || !$("board").matches(":focus-visible")) return;
  if (!page.cursor) page.cursor = firstCell(state);
  render();
}

// Where the cursor starts: the first legal move's cell (a column's bottom cell).
function firstCell(state) {
  const first = state.layout.actions.find((p) => state.legal.includes(p.action) && p.cells.length);
  return first ? [...first.cells[first.cells.length - 1]] : [0, 0];
}

function onBoardBlur() {
  if ($("board").querySelector(".cursor")) render();
}

// How long the agent thinks: at once, or a time per move; a depth or visits set through the
// API or `boardq serve --search` / `--visits` show as one more choice.
function drawSearch(state) {
  const select = $("search");
  const choices = [["0", "at once"]];
  for (const t of state.move_times) choices.push([`t:${t}`, `up to ${t} s a move`]);
  if (state.depth > 0) choices.push([`d:${state.depth}`, `${state.depth} moves ahead`]);
  if (state.visits) choices.push([`v:${state.visits}`, `${state.visits} visits a move`]);
  const key = choices.map(([value]) => value).join(" ");
  if (select.dataset.choices !== key) {
    select.dataset.choices = key;
    select.replaceChildren(...choices.map(([value, text]) => {
      const option = document.createElement("option");
      option.value = value;
      option.textContent = text;
      return option;
    }));
  }
  select.value = state.move_time ? `t:${state.move_time}`
    : state.visits ? `v:${state.visits}` : state.depth ? `d:${state.depth}` : "0";
  $("search-label").title = state.max_depth === 0
    ? "The agent cannot search in this game: boardq has no rules for it"
    : "How long the agent may think before each move (and for the hints); at once: its network alone";
}

// -- records: open one, step through it -----------------------------------------------
async function openRecord(file) {
  if (!file) return;
  const data = await file.arrayBuffer();
  task(async () => {
    await loadRecord({ name: file.name, data }, 1);
  }, `Opening ${file.name}…`);
}

// Asks the server for the record file's `number`-th game; the page's own game is kept
// whatever the answer (a file that cannot be read is one line under the status).
async function loadRecord(file, number) {
  const query = `name=${encodeURIComponent(file.name)}&game=${number}`;
  const answer = await api("POST", `/api/records?${query}`, file.data);
  if (answer.problems.length) showNote(`Skipped in ${answer.file}: ${answer.problems.join("; ")}`);
  if (answer.error && answer.games.length === 1) {
    showError(answer.error);
    return;
  }
  page.replay = { ...file, games: answer.games, number: answer.number, record: answer.record, position: 0 };
  page.cursor = null;
  if (answer.error) showError(answer.error);
}

function stepTo(position) {
  const replay = page.replay;
  if (!replay || !replay.record) return;
  replay.position = Math.max(0, Math.min(replay.record.moves.length, position));
  render();
}

function closeRecord() {
  page.replay = null;
  showError("");
  showNote("");
  page.cursor = null;
  render();
}

function pickRecordGame() {
  const replay = page.replay;
  const number = Number($("replay-game").value);
  task(async () => loadRecord(replay, number), "Opening the game…");
}

// The position shown while stepping through a record, as the board drawing takes it.
function replayState() {
  const { record, position } = page.replay;
  const shown = record.positions[position];
  const end = position === record.moves.length;
  return {
    game: record.game, marks: record.marks, layout: record.layout, board: shown.board,
    last: shown.last ? { cell: shown.last } : null, win: end ? record.win : [],
    legal: [], over: false, to_move: null, you: 0, ply: position,
  };
}

function seatWords(record, seat) {
  return `${record.seats[seat]} (${record.marks[seat]})`;
}

function moveWords(record, k) {
  const move = record.moves[k - 1];
  const seat = (k - 1) % 2;
  const notes = [];
  if (move.seconds !== null) notes.push(`${move.seconds.toFixed(2)} s`);
  if (move.value !== null) notes.push(`value ${move.value >= 0 ? "+" : ""}${move.value.toFixed(2)}`);
  return `${record.seats[seat]} ${move.describe}${notes.length ? ` (${notes.join("; ")})` : ""}`;
}

function replayStatus(record, k) {
  let text = k === 0 ? "The start." : `Move ${k}: ${moveWords(record, k)}.`;
  if (k === record.moves.length) {
    text += record.end ? ` The end: ${record.end}.` : " The record ends before the game does.";
  }
  return text;
}

function drawReplayBox() {
  const replay = page.replay;
  $("replay").hidden = !replay;
  if (!replay) return;
  const label = $("replay-game-label");
  label.hidden = replay.games.length < 2;
  const select = $("replay-game");
  if (select.dataset.file !== replay.name || select.options.length !== replay.games.length) {
    select.dataset.file = replay.name;
    select.replaceChildren(...replay.games.map((g, i) => {
      const option = document.createElement("option");
      option.value = String(i + 1);
      option.textContent = `${i + 1}. ${g.title}: ${g.players.join(" vs ")}, ${g.result}, ${g.moves} moves`;
      return option;
    }));
  }
  select.value = String(replay.number);
  select.disabled = page.busy;
  const record = replay.record;
  const summary = replay.games[replay.number - 1];
  $("replay-title").textContent = `${replay.name}: ${summary.title}, ${summary.result}, ${summary.moves} moves`;
  $("replay-players").textContent = record ? replayPlayers(record) : "";
  const length = record ? record.moves.length : 0;
  for (const id of ["replay-start", "replay-back"]) $(id).disabled = !record || replay.position === 0;
  for (const id of ["replay-next", "replay-end"]) $(id).disabled = !record || replay.position === length;
  $("replay-move").disabled = !record;
  $("replay-move").max = String(length);
  if (document.activeElement !== $("replay-move")) $("replay-move").value = String(replay.position);
  $("replay-length").textContent = `of ${length}`;
}

function replayPlayers(record) {
  const parts = record.players.map((p, seat) => `${seatWords(record, seat)}: ${p.name}`);
  if (record.event) parts.push(record.event);
  if (record.started) parts.push(`started ${record.started}`);
  if (record.claimed_result) parts.push(`the file's own result: ${record.claimed_result}`);
  if (record.engine_count) parts.push(`the engine's count: ${record.engine_count}`);
  if (record.komi !== null && record.komi !== undefined) parts.push(`komi ${record.komi}`);
  if (record.moves.some((m) => m.value !== null)) parts.push("value: the agent's value of its move, +1 a win, -1 a loss");
  return parts.join(" · ");
}

function renderReplay() {
  const { record, position } = page.replay;
  document.body.dataset.phase = page.busy ? "busy" : "replay";
  document.body.dataset.result = "";
  drawReplayBox();
  setControls(true);
  const state = replayState();
  document.title = `${record.game.title} record · boardq`;
  if (!page.busy) $("status").textContent = replayStatus(record, position);
  drawBoard(state);
  drawButtons(state);
  $("hint-legend").hidden = true;
  $("legend").textContent = `${seatWords(record, 0)} moved first.`;
  const list = $("moves");
  list.replaceChildren();
  record.moves.forEach((m, i) => {
    const item = document.createElement("li");
    item.textContent = moveWords(record, i + 1);
    item.className = `step${i + 1 === position ? " current" : ""}`;
    item.addEventListener("click", () => stepTo(i + 1));
    list.appendChild(item);
  });
  const current = list.querySelector(".current");
  if (current) current.scrollIntoView({ block: "nearest" });
}

function onDrop(event) {
  event.preventDefault();
  document.body.classList.remove("dropping");
  const file = event.dataTransfer && event.dataTransfer.files[0];
  if (file && !page.busy) openRecord(file);
}

// -- start ----------------------------------------------------------------------------
async function start() {
  $("game").addEventListener("change", () => startGame($("game").value));
  $("seat").addEventListener("change", newGame);
  $("search").addEventListener("change", setSearch);
  $("record-file").addEventListener("change", (event) => {
    openRecord(event.target.files[0]);
    event.target.value = "";  // the same file may be opened again
  });
  $("replay-start").addEventListener("click", () => stepTo(0));
  $("replay-back").addEventListener("click", () => stepTo(page.replay.position - 1));
  $("replay-next").addEventListener("click", () => stepTo(page.replay.position + 1));
  $("replay-end").addEventListener("click", () => stepTo(Infinity));
  $("replay-move").addEventListener("change", () => stepTo(Number($("replay-move").value)));
  $("replay-close").addEventListener("click", closeRecord);
  $("replay-game").addEventListener("change", pickRecordGame);
  document.addEventListener("dragover", (event) => {
    event.preventDefault();
    document.body.classList.add("dropping");
  });
  document.addEventListener("dragleave", () => document.body.classList.remove("dropping"));
  document.addEventListener("drop", onDrop);
  $("hints").addEventListener("change", toggleHints);
  $("new").addEventListener("click", newGame);
  $("undo").addEventListener("click", undo);
  $("board").addEventListener("keydown", onBoardKey);
  $("board").addEventListener("focus", onBoardFocus);
  $("board").addEventListener("blur", onBoardBlur);
  $("board").addEventListener("mousedown", () => { page.keyboard = false; });
  let listing;
  try {
    listing = await api("GET", "/api/games");
  } catch (e) {
    showError(e.message);
    return;
  }
  page.games = listing.games;
  const select = $("game");
  if (!listing.default) {
    const prompt = document.createElement("option");
    prompt.value = "";
    prompt.textContent = "choose a game…";
    select.appendChild(prompt);
  }
  for (const game of listing.games) {
    const option = document.createElement("option");
    option.value = game.name;
    option.textContent = game.title;
    select.appendChild(option);
  }
  const saved = sessionStorage.getItem("boardq-session");
  if (saved) {
    try {
      const state = await api("GET", `/api/sessions/${encodeURIComponent(saved)}`);
      if (listing.games.some((g) => g.name === state.game.name)) {
        await receive(state);
        render();
        return;
      }
    } catch (_) {
      sessionStorage.removeItem("boardq-session");
    }
  }
  const wanted = new URLSearchParams(location.search).get("game") || listing.default;
  if (wanted && listing.games.some((g) => g.name === wanted)) {
    select.value = wanted;
    startGame(wanted);
  } else {
    render();
  }
}

start();
