// tdgammon's page: a game against the bot and the analysis of a position, over the
// HTTP API of `tdgammon serve` (engine/interfaces/serve_app.py). Plain JavaScript,
// no build step and nothing from the network.
//
// The board is the project's SVG picture (engine/display/svg.py), drawn by the
// server from the person's side. Its points and checkers carry data-point (the
// mover's point number, or "bar") and the tray the class "tray", so a click finds
// its point. A move is picked one checker at a time: click a checker, then one of
// the highlighted points (or the tray to bear off). The single-die steps allowed
// are those that keep some legal play of the state's legal_moves in reach; the
// board in between is drawn by the server again from an XGID of the checkers as
// they stand (POST /api/show). When the steps make a whole legal play, it is sent.
//
// Every action carries the version of the state last drawn (serve_games.py): one
// sent twice (a double click, a retry) or from a stale tab is refused with 409 and
// nothing applied; the page then draws the game as it is now and shows why.
"use strict";

const $ = (id) => document.getElementById(id);
let state = null; // the game's state, as the server answers it
let partial = []; // the person's single-die steps of this turn: [[from, to], ...]
let selected = null; // the point a checker was picked up from

// ------------------------------------------------------------------ the API

async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await response.json();
  if (!response.ok) {
    throw Object.assign(new Error(answer.error || response.statusText), {
      status: response.status,
      answer,
    });
  }
  return answer;
}

async function guarded(work) {
  // run a click's work, showing its error; body[data-busy] is "1" meanwhile
  document.body.dataset.busy = "1";
  $("error").textContent = "";
  try {
    await work();
  } catch (error) {
    $("error").textContent = error.message;
  } finally {
    document.body.dataset.busy = "0";
  }
}

function setState(next) {
  state = next;
  partial = [];
  selected = null;
  $("hint-panel").hidden = true;
  $("game-analysis").hidden = true;
  render();
}

async function act(action, extra = {}) {
  // the person's action, for the version drawn; the game's analysis when it ends it
  const body = { action, version: state.version, ...extra };
  let next;
  try {
    next = await api("POST", `/api/games/${state.id}/actions`, body);
  } catch (error) {
    // refused: draw the game as it is now; a stale version (a second click, another
    // tab) is told in a person's words, a rules refusal by the server's message
    if (error.status === 409) await reload();
    if (error.status === 409 && error.answer.version !== undefined) throw new Error(STALE_MESSAGE);
    throw error; // shown by guarded
  }
  setState(next);
  if (state.result && !state.set_up) await gameAnalysis();
}

const STALE_MESSAGE =
  "Not played: the game had already moved on (a second click, or another tab). " +
  "The board shows it as it is now.";

async function reload() {
  // the game's state from the server, drawn again if it has moved on since
  const now = await api("GET", `/api/games/${state.id}`);
  if (now.version !== state.version) setState(now);
}

// ------------------------------------------------------------------ drawing

function statusText() {
  const me = state.names[state.seat];
  const bot = state.names[1 - state.seat];
  const [mine, theirs] = [state.match.scores[state.seat], state.match.scores[1 - state.seat]];
  const what = state.match.length ? `Match to ${state.match.length}` : "Money";
  const score = ` ${what}: ${me} ${mine}, ${bot} ${theirs}.`;
  if (state.result) {
    const over = state.match.length ? " The match is over." : " The session is over.";
    return `${state.result.text}.${score}${state.match.over ? over : ""}`;
  }
  const cube = 2 * state.cube.value;
  const dice = (state.dice || []).join("-");
  const texts = {
    "to move": `Your move: ${dice}. Click a checker, then where it goes.`,
    "to roll": "Your turn: roll, or double.",
    doubled: `${bot} doubles to ${cube}: take or pass?`,
    beavered: `${bot} beavers to ${cube}: take or pass?`,
    raccooned: `${bot} raccoons to ${cube}: take or pass?`,
  };
  return (texts[state.phase] || `Waiting for ${bot}.`) + score;
}

function render() {
  drawBoard(state.svg);
  for (const button of document.querySelectorAll("[data-action]")) {
    button.hidden = !state.actions.includes(button.dataset.action);
  }
  $("undo").hidden = partial.length === 0;
  $("hint-button").hidden = !(state.your_decision && state.position);
  $("analyse-game").hidden = state.set_up;
  $("move-form").hidden = !state.actions.includes("move");
  const mat = $("download-mat");
  mat.hidden = state.set_up;
  mat.href = `/api/games/${state.id}/mat`;
  $("status").textContent = statusText();
  const log = $("log");
  log.replaceChildren(
    ...state.log.map((line) => Object.assign(document.createElement("li"), { textContent: line })),
  );
  log.scrollTop = log.scrollHeight;
}

function drawBoard(svg) {
  const board = $("board");
  board.innerHTML = svg;
  for (const element of board.querySelectorAll("[data-point]")) {
    const point = element.dataset.point === "bar" ? 25 : Number(element.dataset.point);
    element.addEventListener("click", () => guarded(() => clickPoint(point)));
  }
  for (const element of board.querySelectorAll(".tray, .off")) {
    element.addEventListener("click", () => guarded(() => clickPoint(0)));
  }
  mark();
}

function mark() {
  const board = $("board");
  for (const element of board.querySelectorAll(".selected, .target")) {
    element.classList.remove("selected", "target");
  }
  if (selected === null) return;
  board.querySelector(`polygon[data-point="${selected}"]`)?.classList.add("selected");
  for (const to of routes(selected, partial).keys()) {
    const where = to === 0 ? ".tray" : `polygon[data-point="${to}"]`;
    board.querySelector(where)?.classList.add("target");
  }
}

// ------------------------------------------------------------------ moving by clicks

function remaining(play, steps) {
  // the play's single-die steps less `steps` (as multisets), or null if one is not in it
  const left = play.pairs.map((pair) => pair.join("/"));
  for (const step of steps) {
    const at = left.indexOf(step.join("/"));
    if (at < 0) return null;
    left.splice(at, 1);
  }
  return left;
}

function boardAfter(steps) {
  // state.board (the mover's view, engine/rules/board.py) after `steps`
  const board = state.board.slice();
  for (const [from, to] of steps) {
    board[from] -= 1;
    if (to === 0) {
      board[0] += 1;
    } else {
      if (board[to] === -1) {
        board[to] = 0;
        board[26] -= 1; // the hit checker goes to the opponent's bar
      }
      board[to] += 1;
    }
  }
  return board;
}

function nextSteps(steps) {
  // the single-die steps that keep a legal play in reach after `steps`
  const board = boardAfter(steps);
  const out = new Set();
  for (const play of state.legal_moves) {
    for (const step of remaining(play, steps) || []) {
      const from = Number(step.split("/")[0]);
      if (board[from] > 0 && (board[25] === 0 || from === 25)) out.add(step);
    }
  }
  return out;
}

function routes(from, steps) {
  // where the checker on `from` may go: destination -> the steps so far and there,
  // fewest steps first (a checker on the 2 bears off with the 6 of 6-1, not 2/1/off)
  const found = new Map();
  let frontier = [[from, steps]];
  while (frontier.length) {
    const next = [];
    for (const [at, path] of frontier) {
      for (const step of nextSteps(path)) {
        const [a, b] = step.split("/").map(Number);
        if (a !== at || found.has(b)) continue;
        found.set(b, [...path, [a, b]]);
        if (b > 0) next.push([b, found.get(b)]);
      }
    }
    frontier = next;
  }
  return found;
}

const movable = (point) => [...nextSteps(partial)].some((step) => step.startsWith(`${point}/`));

async function clickPoint(point) {
  // pick up a checker, put it down on a highlighted point, or put it back
  if (!state || !state.actions.includes("move")) return;
  const path = selected === null ? undefined : routes(selected, partial).get(point);
  if (!path) {
    selected = point !== selected && movable(point) ? point : null;
    mark();
    return;
  }
  partial = path;
  selected = null;
  const done = state.legal_moves.find((play) => remaining(play, partial)?.length === 0);
  if (done) return act("move", { move: done.move });
  $("undo").hidden = false;
  await drawPartial();
}

function xgidCell(count, moverUpper) {
  if (!count) return "-";
  const upper = count > 0 === moverUpper;
  return String.fromCharCode((upper ? 65 : 97) + Math.abs(count) - 1);
}

function partialXgid() {
  // the state's XGID (docs/formats.md) with the checkers as they stand after `partial`
  const board = boardAfter(partial);
  const fields = state.position.xgid.split(":");
  const bottom = fields[3] === "1"; // the mover is the XGID's bottom player
  const cells = bottom
    ? [board[26], ...board.slice(1, 25), board[25]]
    : [board[25], ...board.slice(1, 25).reverse(), board[26]];
  fields[0] = "XGID=" + cells.map((count) => xgidCell(count, bottom)).join("");
  return fields.join(":");
}

async function drawPartial() {
  drawBoard(partial.length ? (await api("POST", "/api/show", { position: partialXgid() })).svg : state.svg);
  $("undo").hidden = partial.length === 0;
}

// ------------------------------------------------------------------ hints and analysis

const percent = (value) => (value === null || value === undefined ? "n/a" : `${(100 * value).toFixed(1)}%`);
const signed = (value) => (value === null || value === undefined ? "n/a" : (value >= 0 ? "+" : "") + value.toFixed(3));

function element(tag, text, className) {
  const out = document.createElement(tag);
  if (text !== undefined) out.textContent = text;
  if (className) out.className = className;
  return out;
}

function playsTable(report, table, playable) {
  table.replaceChildren();
  const head = table.insertRow();
  for (const title of ["", "play", "equity", "loss", "win"]) head.append(element("th", title));
  report.moves.slice(0, 10).forEach((play, index) => {
    const row = table.insertRow();
    row.append(element("td", `${index + 1}.`), element("td", play.move || "(no move)"));
    row.append(element("td", signed(play.equity)), element("td", index ? signed(-play.loss) : ""));
    row.append(element("td", percent(play.probabilities.win)));
    if (playable) {
      const button = element("button", "Play", "play-hint");
      button.addEventListener("click", () => guarded(() => act("move", { move: play.move })));
      row.insertCell().append(button);
    }
  });
}

function cubeAdvice(report, box) {
  box.replaceChildren(element("p", report.action, "cube-action"));
  const table = element("table");
  for (const [name, key] of [["No double", "no_double"], ["Double, take", "double_take"], ["Double, pass", "double_pass"]]) {
    const row = table.insertRow();
    row.append(element("td", name), element("td", signed(report[key])));
  }
  box.append(table);
  if (report.take_point !== null) {
    box.append(element("p", `Take point ${percent(report.take_point)} (the taker's winning chances), cash point ${percent(report.cash_point)}.`, "take-point"));
  }
  const lines = element("ul", undefined, "explanation");
  for (const line of report.explanation || []) lines.append(element("li", line));
  box.append(lines);
}

async function hint() {
  $("hint-panel").hidden = false;
  $("plays").replaceChildren();
  $("cube-advice").replaceChildren();
  const position = state.position.xgid;
  if (state.phase === "to move") {
    playsTable(await api("POST", "/api/hint", { position }), $("plays"), true);
  } else {
    cubeAdvice(await api("POST", "/api/cube", { position }), $("cube-advice"));
  }
}

async function analyse() {
  const position = $("analyse-text").value.trim();
  const out = $("analysis");
  out.replaceChildren();
  const shown = await api("POST", "/api/show", { position });
  const picture = element("div", undefined, "small-board");
  picture.innerHTML = shown.svg;
  out.append(picture, element("p", `${shown.xgid}  ${shown.position_id}:${shown.match_id}`, "ids"));
  const evaluation = await api("POST", "/api/eval", { position });
  const p = evaluation.probabilities;
  out.append(element("p", `${evaluation.plies}-ply: win ${percent(p.win)} (gammon ${percent(p.win_gammon)}), lose gammon ${percent(p.lose_gammon)}; equity ${signed(evaluation.equity)}, cubeful ${signed(evaluation.cubeful_equity)}`));
  const dice = shown.xgid.split(":")[4];
  if (/^[1-6][1-6]$/.test(dice)) {
    const table = element("table");
    out.append(table);
    playsTable(await api("POST", "/api/hint", { position }), table, false);
  } else {
    const box = element("div");
    out.append(box);
    cubeAdvice(await api("POST", "/api/cube", { position }), box);
  }
}

// ------------------------------------------------------------------ the game's analysis

function fillTable(table, titles, rows) {
  table.replaceChildren();
  const head = table.insertRow();
  for (const title of titles) head.append(element("th", title));
  for (const cells of rows) {
    const row = table.insertRow();
    for (const text of cells) row.append(element("td", String(text)));
  }
}

function summaryRow(player) {
  // a player's totals (docs/formats.md, "Match analysis"): error rates in mEMG per decision
  const { checker, cube } = player;
  return [player.name, checker.unforced, checker.error_rate.toFixed(1), cube.decisions,
    cube.error_rate.toFixed(1), player.pr.toFixed(1), signed(player.luck)];
}

function mistakeRow(decision) {
  // a marked decision: where, who, the roll (or "cube"), played, best and the equity lost
  const [roll, played, best] = decision.type === "checker"
    ? [decision.dice.join("-"), decision.played.move, decision.best[0].move]
    : ["cube", decision.action, decision.cube.proper];
  return [decision.game, decision.ply, decision.player, roll, played, best,
    decision.error.toFixed(3), decision.label || decision.mark];
}

async function gameAnalysis() {
  const report = await api("GET", `/api/games/${state.id}/analysis`);
  const { plies, games, thresholds } = report.match;
  $("analysis-method").textContent = `${plies}-ply analysis of ${games} game${games === 1 ? "" : "s"}: `
    + `error rates in mEMG per decision, luck and equity lost in EMG; mistakes lose ${thresholds.doubtful.toFixed(3)} or more.`;
  fillTable($("analysis-summary"), ["", "checker plays", "error rate", "cube decisions", "error rate", "PR", "luck"],
    report.players.map(summaryRow));
  const marked = report.decisions.filter((decision) => decision.mark);
  fillTable($("mistakes"), ["game", "move", "player", "roll", "played", "best", "lost", ""], marked.map(mistakeRow));
  $("mistakes").hidden = marked.length === 0;
  $("no-mistakes").hidden = marked.length > 0;
  $("game-analysis").hidden = false;
}

function gameOptions() {
  const form = $("new-game-form");
  const options = {
    opponent: form.opponent.value,
    length: Number(form.length.value),
    plies: Number(form.plies.value),
  };
  for (const name of ["cubeless", "jacoby", "beavers"]) if (form[name].checked) options[name] = true;
  const position = form.position.value.trim();
  if (position) options.position = position;
  return options;
}

// ------------------------------------------------------------------ wiring

function wire() {
  for (const button of document.querySelectorAll("[data-action]")) {
    button.addEventListener("click", () => guarded(() => act(button.dataset.action)));
  }
  $("undo").addEventListener("click", () => guarded(() => {
    partial.pop();
    selected = null;
    return drawPartial();
  }));
  $("hint-button").addEventListener("click", () => guarded(hint));
  $("analyse-game").addEventListener("click", () => guarded(gameAnalysis));
  $("move-form").addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(() => act("move", { move: $("move-text").value }));
  });
  $("new-game-form").addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(async () => setState(await api("POST", "/api/games", gameOptions())));
  });
  $("analyse-form").addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(analyse);
  });
  $("play-from-here").addEventListener("click", () => guarded(async () => {
    const options = { ...gameOptions(), position: $("analyse-text").value.trim() };
    setState(await api("POST", "/api/games", options));
  }));
  for (const child of $("controls").children) child.hidden = true;
  $("move-form").hidden = true;
}

window.tdgammon = { get state() { return state; } };
document.addEventListener("DOMContentLoaded", wire);
