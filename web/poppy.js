// The page of `poppy serve`. One state object, rendered from the server's JSON after every
// request; the server is the judge of legality (the page highlights targets from its list of
// legal moves, but whatever a person tries is sent, and a refusal is shown as the server words it).
'use strict';

// Kanji come from the server with each piece (play/game_files/piece_kanji.h): one table for the page and
// the SVG boards.


const ui = {
  variants: [],
  state: null,        // the server's game state
  analysis: null,     // the latest analysis, with the SFEN it belongs to
  selected: null,     // {from: "2e"} or {drop: "P"}
  busy: false,
  pending: Promise.resolve(),  // the action in progress (the self-test awaits it)
  openings: {root: null, path: [], data: null},
  stateAt: 0,          // performance.now() when the state (and its clock) arrived
  clockRefresh: 0,     // when the page last asked the server whether a flag fell
  preview: {key: null, pending: Promise.resolve()},
};

const $ = (id) => document.getElementById(id);

// ---- server calls --------------------------------------------------------------------------

async function api(method, path, body) {
  const options = {method, headers: {}};
  if (body !== undefined) {
    options.headers['Content-Type'] = 'application/json';
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (e) {
    throw new Error('the server does not answer (is poppy serve still running?)');
  }
  let data;
  try {
    data = await response.json();
  } catch (e) {
    throw new Error(`the server sent a reply that is not JSON (HTTP ${response.status})`);
  }
  // A long search answers 200 before it ends (the server streams whitespace while it watches
  // the connection), so an error found after that comes as {"error"} in a 200 reply.
  if (!response.ok || (data && typeof data.error === 'string')) {
    const err = new Error(data.error || `HTTP ${response.status}`);
    err.status = response.status;
    throw err;
  }
  return data;
}

function showMessage(text, kind) {
  const m = $('message');
  m.textContent = text || '';
  m.className = text ? (kind || 'info') : '';
}

// Runs one user action at a time; ui.pending lets scripts wait for it.
function act(fn) {
  ui.pending = ui.pending.then(async () => {
    try {
      await fn();
    } catch (e) {
      showMessage(e.message, 'error');
    }
  });
  return ui.pending;
}

// ---- geometry --------------------------------------------------------------------------------

// The side the board is drawn from: the person's (the first person's among four), else the first.
function viewer() {
  const s = ui.state;
  if (s && s.players > 2) return s.seats.includes(s.human) ? s.human : s.seats[0];
  return s && s.human === 'gote' ? 'gote' : 'sente';
}

// Four players sit round the board, in turn order from the viewer: left, across, right.
function seatAt(offset) {
  const s = ui.state;
  return s.seats[(s.seats.indexOf(viewer()) + offset) % s.seats.length];
}

// The squares in drawing order (rows from the top, each from the left). Two players: gote sees
// the board turned round. Four: each seat sees its own side at the bottom, the board turned by
// its quarter turns (as play/human/four_player_board_text.cpp; west's side, file 9, at the bottom).
function viewSquares(s) {
  if (s.players <= 2) return viewer() === 'gote' ? [...s.board].reverse() : s.board;
  const n = s.files, k = s.seats.indexOf(viewer()), out = [];
  for (let r = 0; r < n; ++r) {
    for (let c = 0; c < n; ++c) {
      const [col, rank] = k === 0 ? [c, r] : k === 1 ? [n - 1 - r, c] : k === 2 ? [n - 1 - c, n - 1 - r] : [r, n - 1 - c];
      out.push(s.board[rank * n + col]);
    }
  }
  return out;
}

// Clockwise quarter turns of a tile of `color`'s army as the viewer sees it (0: pointing up).
function pieceTurns(color) {
  const s = ui.state;
  if (!s || s.players <= 2) return color !== viewer() ? 2 : 0;
  return (s.seats.indexOf(color) - s.seats.indexOf(viewer()) + 4) % 4;
}

// Who moves a piece: its army's seat, or among four the mater that took the army over.
const controllerOf = (piece) => piece.controller || piece.color;
const humans = () => (ui.state ? ui.state.humans : []);

function squareSize(files, ranks) {
  const n = Math.max(files, ranks);
  return n <= 5 ? 72 : n <= 7 ? 62 : 52;
}

// ---- rendering -----------------------------------------------------------------------------

function pieceElement(piece, turns) {
  const el = document.createElement('div');
  el.className = 'piece';
  if (turns === 2) el.classList.add('down');
  else if (turns) el.classList.add(`turn-${turns}`);
  if (piece.promoted) el.classList.add('promoted');
  const letters = $('letters-toggle').checked || !piece.kanji;
  if (letters) el.classList.add('letters');
  const big = document.createElement('span');
  big.className = 'kanji';
  big.textContent = letters ? piece.token : piece.kanji;
  const small = document.createElement('span');
  small.className = 'token';
  small.textContent = letters ? piece.name : piece.token;
  el.append(big, small);
  el.title = `${piece.color} ${piece.name} (${piece.token})`;
  if (ui.state && ui.state.players > 2) {
    // The army's letter, so that the four armies read apart without colour.
    el.setAttribute('data-army', piece.color);
    const army = document.createElement('span');
    army.className = 'army';
    army.textContent = piece.color[0];
    el.append(army);
    if (piece.controller && piece.controller !== piece.color) el.title += `, moved by ${piece.controller}`;
  }
  return el;
}

// With a first step chosen (sel.mid: a lion's double move), the moves through that square,
// and the plain move that ends there.
function legalFrom(sel) {
  if (!ui.state || !sel) return [];
  if (sel.mid) {
    return ui.state.legal_moves.filter((m) => m.from === sel.from &&
        (m.mid === sel.mid || (!m.mid && m.to === sel.mid)));
  }
  return ui.state.legal_moves.filter((m) => (sel.from ? m.from === sel.from : m.drop === sel.drop && m.from === null));
}

function heatValues() {
  const a = ui.analysis;
  if (!$('heat-toggle').checked || !a || !ui.state || a.sfen !== ui.state.sfen) return null;
  // A network's priors are the policy; the rollout search has flat priors, so show its visits.
  return a.network ? a.heat : a.heat_visits;
}

function render() {
  const s = ui.state;
  if (!s) return;
  document.documentElement.style.setProperty('--sq', squareSize(s.files, s.ranks) + 'px');
  const board = $('board');
  board.style.gridTemplateColumns = `repeat(${s.files}, var(--sq))`;
  board.replaceChildren();
  const targets = new Map();
  for (const m of legalFrom(ui.selected)) targets.set(m.to, true);
  const heat = heatValues();
  const heatMax = heat ? Math.max(1e-9, ...Object.values(heat)) : 1;
  const squares = viewSquares(s);
  for (const sq of squares) {
    const el = document.createElement('div');
    el.className = 'square';
    el.setAttribute('data-square', sq.square);
    if (sq.piece) {
      el.setAttribute('data-piece', sq.piece.token);
      el.setAttribute('data-color', sq.piece.color);
      el.setAttribute('data-turns', String(pieceTurns(sq.piece.color)));
      el.classList.add('occupied');
      const p = pieceElement(sq.piece, pieceTurns(sq.piece.color));
      p.draggable = !s.game_over && controllerOf(sq.piece) === s.side_to_move;
      el.append(p);
    }
    if (s.last_move && (s.last_move.to === sq.square || s.last_move.from === sq.square)) el.classList.add('last');
    if (ui.selected && (ui.selected.from === sq.square || ui.selected.mid === sq.square)) el.classList.add('selected');
    if (targets.has(sq.square)) el.classList.add('target');
    if (heat && heat[sq.square]) {
      const h = document.createElement('div');
      h.className = 'heat';
      h.style.opacity = (0.55 * heat[sq.square] / heatMax).toFixed(3);
      const label = document.createElement('div');
      label.className = 'heat-label';
      label.textContent = Math.round(100 * heat[sq.square]) + '%';
      el.append(h, label);
    }
    board.append(el);
  }
  // The coordinates along the top and down the right: file numbers and rank letters, swapped
  // where the board is turned a quarter (west and east at the bottom).
  const columns = s.files;
  const filesAlongTop = s.players <= 2 || s.seats.indexOf(viewer()) % 2 === 0;
  const coordinate = (sq, file) => (file ? sq.file : sq.rank);
  const top = squares.slice(0, columns).map((sq) => coordinate(sq, filesAlongTop));
  const side = [];
  for (let r = 0; r < s.ranks; ++r) side.push(coordinate(squares[r * columns], !filesAlongTop));
  $('file-labels').replaceChildren(...top.map((f) => Object.assign(document.createElement('div'), {textContent: f})));
  $('rank-labels').replaceChildren(...side.map((r) => Object.assign(document.createElement('div'), {textContent: r})));

  const four = s.players > 2;
  renderHand($('hand-top'), four ? seatAt(2) : viewer() === 'gote' ? 'sente' : 'gote');
  renderHand($('hand-bottom'), viewer());
  $('hand-left').hidden = $('hand-right').hidden = !four;
  if (four) {
    renderHand($('hand-left'), seatAt(1));
    renderHand($('hand-right'), seatAt(3));
  }

  let status;
  if (s.game_over) {
    const r = s.result;
    const reason = r.reason === 'timeout' ? `${r.winner === 'sente' ? 'gote' : 'sente'} ran out of time` : r.reason;
    status = `Game over: ${reason}` + (r.winner ? `, ${r.winner} wins` : ', draw');
  } else {
    status = `${s.side_to_move} to move` + (s.check ? ' (check)' : '') + ` · move ${s.ply + 1}`;
  }
  if (four) {
    // Who is out, and who moves the armies taken over.
    const out = s.armies.filter((a) => a.out).map((a) => `${a.seat} mated (${a.controller} moves its pieces)`);
    if (out.length) status += ` · ${out.join(', ')}`;
  }
  $('status').textContent = status;
  $('status').className = s.game_over ? 'over' : '';
  $('status').setAttribute('data-side-to-move', s.side_to_move);
  $('status').setAttribute('data-game-over', s.game_over ? 'true' : 'false');
  renderRecord();
  $('engine-name').textContent = `${s.engine} · ${s.variant}`;
  $('undo').disabled = s.history.length === 0 || ui.busy || !!s.clock;
  $('undo').title = s.clock ? 'A game on a clock cannot be taken back' : '';
  renderEvaluation();
  renderClocks();
}

// ---- clocks ----------------------------------------------------------------------------------

const pct = (x) => `${Math.round(100 * x)}%`;

function formatClock(ms) {
  ms = Math.max(0, ms);
  const s = Math.floor(ms / 1000);
  if (s >= 3600) return `${Math.floor(s / 3600)}:${String(Math.floor(s / 60) % 60).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
  if (s >= 10) return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
  return `0:0${s}.${Math.floor(ms % 1000 / 100)}`;
}

// Each side's clock as the server last gave it, less the time since for the side whose clock
// runs. When a flag falls here the server is asked (it keeps the time that counts).
function renderClocks() {
  const s = ui.state;
  const flipped = viewer() === 'gote';
  const places = {top: flipped ? 'sente' : 'gote', bottom: flipped ? 'gote' : 'sente'};
  for (const [place, side] of Object.entries(places)) {
    const el = $(`clock-${place}`);
    if (!s || !s.clock) { el.hidden = true; continue; }
    el.hidden = false;
    const c = s.clock[side];
    const used = s.clock.running === side ? performance.now() - ui.stateAt : 0;
    const main = c.main_left_ms - used;
    const byoyomi = s.clock.byoyomi_ms > 0 ? c.byoyomi_left_ms - Math.max(0, -main) : 0;
    const lost = s.game_over && s.result && s.result.reason === 'timeout' && s.result.winner !== side;
    const left = Math.max(0, main) + Math.max(0, byoyomi);
    el.textContent = `${side} ` + (main > 0 || s.clock.byoyomi_ms === 0 ? formatClock(main) : `byoyomi ${formatClock(byoyomi)}`);
    el.setAttribute('data-side', side);
    el.setAttribute('data-left-ms', String(Math.round(left)));
    el.classList.toggle('running', s.clock.running === side && !s.game_over);
    el.classList.toggle('low', s.clock.running === side && left < 10000 && !lost);
    el.classList.toggle('flagged', lost);
    if (s.clock.running === side && left <= 0 && !s.game_over && performance.now() - ui.clockRefresh > 500) {
      ui.clockRefresh = performance.now();
      refreshState();
    }
  }
}

// Asks the server for the game's state (a flag may have fallen), unless an action is under way.
function refreshState() {
  if (!ui.state || ui.busy) return Promise.resolve();
  return act(async () => {
    const state = await api('GET', `/api/state?game=${encodeURIComponent(ui.state.game)}`);
    if (state.history.length === ui.state.history.length) setState(state);
  });
}

function renderHand(el, color) {
  const s = ui.state;
  el.replaceChildren();
  el.setAttribute('data-hand', color);
  const label = document.createElement('span');
  label.className = 'hand-label';
  label.textContent = color + (s.players > 2 && s.humans.includes(color) ? ' (you)' : '');
  el.append(label);
  for (const h of s.hands[color]) {
    const item = document.createElement('div');
    item.className = 'hand-piece';
    item.setAttribute('data-hand', color);
    item.setAttribute('data-letter', h.letter);
    item.setAttribute('data-count', h.count);
    if (ui.selected && ui.selected.drop === h.letter && color === s.side_to_move) item.classList.add('selected');
    const p = pieceElement({name: h.name, token: h.token, kanji: h.kanji, color, promoted: false}, pieceTurns(color));
    p.draggable = !s.game_over && color === s.side_to_move;
    item.append(p);
    const count = document.createElement('span');
    count.className = 'count';
    count.textContent = h.count;
    if (h.count > 1) item.append(count);
    el.append(item);
  }
}

// The evaluation bar and the top moves show the latest analysis, converted to sente's view.
function renderEvaluation() {
  const a = ui.analysis;
  const tbody = $('top-moves').querySelector('tbody');
  tbody.replaceChildren();
  if (!a) {
    $('eval-fill').style.height = '50%';
    $('eval-label').textContent = '';
    $('eval-text').textContent = '';
    $('analysis-summary').textContent = 'Press Analyse for the engine\'s view.';
    return;
  }
  // The bar is the expected score (win + half the draws); the text gives it and the win, draw and
  // loss chances apart, all from sente's side. Among four players, from the side to move's: its
  // win, a draw (a draw's point is shared by those still in) and another player's win.
  const four = ui.state && ui.state.players > 2;
  const own = four ? a.side_to_move : 'sente';
  const sente = four || a.side_to_move === 'sente' ? a.win_rate : 1 - a.win_rate;
  const wdl = four || a.side_to_move === 'sente' ? a.wdl : [a.wdl[2], a.wdl[1], a.wdl[0]];
  const ends = document.querySelectorAll('.eval-end');
  ends[0].textContent = four ? 'others' : 'gote';
  ends[1].textContent = own;
  $('eval-fill').style.height = (100 * sente).toFixed(1) + '%';
  $('eval-label').style.bottom = (100 * sente).toFixed(1) + '%';
  $('eval-label').textContent = pct(sente);
  $('eval-bar').setAttribute('data-sente-score', sente.toFixed(3));
  $('eval-text').textContent = `engine, for ${own}: expected score ${pct(sente)} ` +
      `(win ${pct(wdl[0])} · draw ${pct(wdl[1])} · ${four ? 'another wins' : 'loss'} ${pct(wdl[2])})`;
  const current = ui.state && a.sfen === ui.state.sfen;
  $('analysis-summary').textContent =
      `${a.side_to_move} to move${current ? '' : ' (before the engine\'s last move)'}: ` +
      `win ${Math.round(100 * a.wdl[0])}% · draw ${Math.round(100 * a.wdl[1])}% · ` +
      `${four ? 'another wins' : 'loss'} ${Math.round(100 * a.wdl[2])}% ` +
      `· ${a.playouts} playouts${a.network ? '' : ' (rollout MCTS)'}`;
  for (const m of a.moves.slice(0, 10)) {
    const tr = document.createElement('tr');
    tr.setAttribute('data-move', m.usi);
    const cells = [m.usi, m.visits, `${(100 * m.share).toFixed(1)}%`, `${(100 * m.prior).toFixed(1)}%`,
                   `${(100 * m.win_rate).toFixed(1)}`, m.pv.join(' ')];
    cells.forEach((c, i) => {
      const td = document.createElement('td');
      td.textContent = c;
      if (i === 5) td.className = 'line';
      tr.append(td);
    });
    tbody.append(tr);
  }
}

// ---- game actions ----------------------------------------------------------------------------

function playersOf(variant) {
  const v = ui.variants.find((x) => x.name === variant);
  return v ? v.players : 2;
}

// Two players choose a side (and a clock); four tick the seats people play (no clocks).
function showSeatControls() {
  const four = playersOf($('variant').value) > 2;
  $('side-label').hidden = four;
  $('seats').hidden = !four;
  $('clock').disabled = four;
  $('clock').parentElement.title = four ? 'Clocks are for two-player games' : '';
}

function setState(state) {
  ui.state = state;
  ui.stateAt = performance.now();
  ui.selected = null;
  render();
  if ($('heat-toggle').checked && !state.game_over && !heatValues()) analyse();
}

function engineToMove() {
  const s = ui.state;
  return s && !s.game_over && !s.humans.includes(s.side_to_move);
}

// The engine plays every seat that is not a person's until a person is to move (four players:
// up to three engine moves in a row) or the game ends.
async function engineReplies() {
  while (engineToMove()) await engineReply();
}

async function engineReply() {
  ui.busy = true;
  showMessage('The engine is thinking…', 'info');
  try {
    const r = await api('POST', '/api/engine-move', {game: ui.state.game});
    ui.analysis = Object.assign(r.analysis, {sfen: null});
    setState(r.state);
    showMessage(r.move ? `Engine played ${r.move}.` : 'The engine ran out of time.', 'info');
  } finally {
    ui.busy = false;
    render();
  }
}

function newGame(sfen) {
  return act(async () => {
    const variant = $('variant').value;
    const request = {variant};
    if (playersOf(variant) > 2) {
      request.humans = [...document.querySelectorAll('#seats input:checked')].map((b) => b.getAttribute('data-seat'));
      if (request.humans.length === 0) throw new Error('Tick at least one seat to play.');
    } else {
      request.side = $('side').value;
      if ($('clock').value) request.clock = $('clock').value;
    }
    if (sfen) request.sfen = sfen;
    const state = await api('POST', '/api/new', request);
    ui.analysis = null;
    setState(state);
    const you = state.humans.length === state.players ? (state.players > 2 ? 'every seat' : 'both sides')
                                                      : state.humans.join(', ');
    showMessage(`New ${variant} game: you play ${you}` + (state.clock ? `, ${state.clock.text} each.` : '.'), 'info');
    openingsGo(null, []);
    await engineReplies();
  });
}

// Sends the move a person tried; the server decides. On success the engine replies.
async function tryMove(usi) {
  ui.selected = null;
  try {
    const state = await api('POST', '/api/move', {game: ui.state.game, move: usi});
    setState(state);
    showMessage('', '');
  } catch (e) {
    render();  // the board stays as the server has it
    throw e;
  }
  await engineReplies();
}

// A person picked a target square for the selected piece: find the legal moves that match and
// ask which one when there is a choice (promote or not, drop which face).
function attempt(sel, to) {
  const options = legalFrom(sel).filter((m) => m.to === to);
  if (options.length === 0) {
    const usi = sel.from ? sel.from + (sel.mid || '') + to : `${sel.drop}*${to}`;
    return act(() => tryMove(usi));
  }
  if (options.length === 1) return act(() => tryMove(options[0].usi));
  return act(async () => {
    const usi = await choose(options);
    if (usi) await tryMove(usi);
    else { ui.selected = null; render(); }
  });
}

// The promotion (or drop face, or pass) dialog: resolves to the chosen USI move, or null on cancel.
function choose(options, title) {
  return new Promise((resolve) => {
    const box = $('choice');
    const burning = options.some((m) => m.burns && m.burns.length);
    $('choice-title').textContent = title ||
        (burning ? 'Burn which pieces?' : options[0].drop ? 'Drop which side up?' : 'Promote?');
    const buttons = options.map((m) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.setAttribute('data-usi', m.usi);
      b.textContent = choiceText(m, burning);
      b.onclick = () => { box.hidden = true; resolve(m.usi); };
      return b;
    });
    $('choice-buttons').replaceChildren(...buttons);
    $('choice-cancel').onclick = () => { box.hidden = true; resolve(null); };
    box.hidden = false;
  });
}

// A dialog button's text. Mitsugumi's burns name the squares they empty besides the destination
// (a double igui: without moving; none: a plain move, when other choices burn).
function choiceText(m, burning) {
  if (m.burns && m.burns.length) {
    return `${m.usi}: ${m.to === m.from ? 'take' : 'burn'} ${m.burns.join(' and ')}${m.to === m.from ? ' without moving' : ''}`;
  }
  if (m.mid) return `${m.usi}${m.to === m.from ? (isEmpty(m.mid) ? ': pass' : ': igui') : ''}`;
  if (burning) return `${m.usi}: no burn`;
  return `${m.flip ? (m.drop ? '' : 'Promote: ') : (m.drop ? '' : 'Keep: ')}${m.kanji || ''} ${m.name}`;
}

function isEmpty(square) {
  const b = ui.state.board.find((x) => x.square === square);
  return !b || !b.piece;
}

function ownTurn() {
  const s = ui.state;
  return s && !s.game_over && !ui.busy && s.humans.includes(s.side_to_move);
}

function onSquareClick(square) {
  const s = ui.state;
  if (!s) return ui.pending;
  if (s.game_over) { showMessage('The game is over: start a new game or undo.', 'error'); return ui.pending; }
  if (!ownTurn()) { showMessage('Wait for the engine to move.', 'error'); return ui.pending; }
  const sq = s.board.find((b) => b.square === square);
  const own = sq && sq.piece && controllerOf(sq.piece) === s.side_to_move;
  if (ui.selected) {
    const sel = ui.selected;
    if (sel.mid) return attempt(sel, square);  // the second step of a lion's move
    if (sel.from === square) {
      // The selected piece again: a pass where it has one (a lion, chu), or taking two of its
      // neighbours without moving (a double igui: mitsugumi's fire demon and tetrarch), else
      // deselect.
      const stays = s.legal_moves.filter((m) => m.from === square && m.to === square &&
                                               ((m.mid && isEmpty(m.mid)) || m.burns.length > 0));
      if (stays.length === 0) { ui.selected = null; render(); return ui.pending; }
      const title = stays.some((m) => m.burns.length) ? 'Stay on this square: pass, or take which pieces?'
                                                      : 'Pass (stay on this square)?';
      return act(async () => {
        const usi = await choose(stays, title);
        if (usi) await tryMove(usi);
        else { ui.selected = null; render(); }
      });
    }
    // An enemy piece its first step can take: a lion's double move continues from there.
    if (sel.from && !own && s.legal_moves.some((m) => m.from === sel.from && m.mid === square && !isEmpty(square))) {
      ui.selected = {from: sel.from, mid: square};
      render();
      showMessage('Second step: click the square the piece goes on to, the same square to stop there, ' +
                  'or its own square (igui).', 'info');
      return ui.pending;
    }
    if (own && ui.selected.from && legalFrom(ui.selected).every((m) => m.to !== square)) {
      ui.selected = {from: square};  // switching to another own piece
      render();
      return ui.pending;
    }
    return attempt(ui.selected, square);
  }
  if (own) { ui.selected = {from: square}; render(); }
  return ui.pending;
}

function onHandClick(color, letter) {
  const s = ui.state;
  if (!s || !ownTurn() || color !== s.side_to_move) return;
  ui.selected = ui.selected && ui.selected.drop === letter ? null : {drop: letter};
  render();
}

function undo() {
  return act(async () => {
    const state = await api('POST', '/api/undo', {game: ui.state.game});
    ui.analysis = null;
    setState(state);
    showMessage('Took back.', 'info');
  });
}

function analyse() {
  return act(async () => {
    if (!ui.state || ui.state.game_over) return;
    const sfen = ui.state.sfen;
    showMessage('Analysing…', 'info');
    const a = await api('GET', `/api/analysis?game=${encodeURIComponent(ui.state.game)}`);
    ui.analysis = a;
    if (ui.state.sfen === sfen) render();
    showMessage('', '');
  });
}

// ---- opening explorer ------------------------------------------------------------------------

// Shows the engine's preferred children of a position; clicking a child goes down the tree.
function openingsGo(sfen, path) {
  return act(async () => {
    if (!ui.state) return;
    const q = `variant=${encodeURIComponent(ui.state.variant)}` + (sfen ? `&sfen=${encodeURIComponent(sfen)}` : '');
    $('openings-summary').textContent = 'Searching…';
    const data = await api('GET', `/api/openings?${q}`);
    ui.openings = {path, data};
    renderOpenings();
  });
}

function renderOpenings() {
  const o = ui.openings;
  const tbody = $('openings-list').querySelector('tbody');
  tbody.replaceChildren();
  if (!o.data) return;
  $('openings-path').textContent = o.path.length ? o.path.map((p) => p.move).join(' ') : '(start of the line)';
  $('openings-summary').textContent =
      `${o.data.side_to_move} to move, expected score ${pct(o.data.win_rate)} · ${o.data.playouts} playouts` +
      (o.data.in_book ? ' · in the book' : '');
  for (const c of o.data.children.slice(0, 12)) {
    const tr = document.createElement('tr');
    tr.setAttribute('data-move', c.move);
    const bar = `<span class="share-bar" style="width:${Math.round(80 * c.share)}px"></span>`;
    tr.innerHTML = `<td></td><td>${bar}${(100 * c.share).toFixed(1)}%</td><td>${(100 * c.win_rate).toFixed(1)}</td>` +
                   `<td>${c.book_weight !== undefined ? c.book_weight.toFixed(2) : ''}</td>`;
    tr.firstChild.textContent = c.move;
    tr.tabIndex = 0;
    tr.onclick = () => openingsGo(c.sfen, [...o.path, {move: c.move, sfen: o.data.sfen}]);
    tr.onmouseenter = tr.onfocus = () => showPreview(o.data, c);
    tbody.append(tr);
  }
  if (o.data.children.length) showPreview(o.data, o.data.children[0]);
  else { $('openings-preview-caption').textContent = ''; $('openings-preview-board').replaceChildren(); }
}

// The board after a move of the explorer, drawn by the server (play/human/board_svg.h, the same pieces
// as the page's); the latest request wins.
function showPreview(data, child) {
  if (playersOf(data.variant) > 2) {
    // Board pictures are drawn for two players only (play/human/board_svg.h).
    $('openings-preview-caption').textContent = `after ${child.move}: share ${pct(child.share)}, score ${pct(child.win_rate)}`;
    $('openings-preview-board').replaceChildren();
    return Promise.resolve();
  }
  const letters = $('letters-toggle').checked ? '1' : '0';
  const key = `${data.variant}|${data.sfen}|${child.move}|${letters}`;
  if (ui.preview.key === key) return ui.preview.pending;
  ui.preview.key = key;
  const q = `variant=${encodeURIComponent(data.variant)}&sfen=${encodeURIComponent(data.sfen)}` +
            `&move=${encodeURIComponent(child.move)}&letters=${letters}`;
  ui.preview.pending = api('GET', `/api/board?${q}`).then((b) => {
    if (ui.preview.key !== key) return;
    const line = [...ui.openings.path.map((p) => p.move), child.move].join(' ');
    $('openings-preview-caption').textContent = `after ${line}: share ${pct(child.share)}, score ${pct(child.win_rate)}`;
    $('openings-preview-board').setAttribute('data-move', child.move);
    $('openings-preview-board').innerHTML = b.svg.replace(/^<\?xml[^>]*>\s*/, '');
  }).catch((e) => showMessage(e.message, 'error'));
  return ui.preview.pending;
}

// ---- the study board: a record to step through ---------------------------------------------------

// The record under the board: the moves played (the last one bold) and, after them, the moves
// stepped back over (grey); a click on a move shows the position after it.
function renderRecord() {
  const s = ui.state;
  const record = s.record || s.history;
  const items = record.map((m, i) => {
    const el = document.createElement('span');
    el.className = 'ply' + (i + 1 === s.record_at ? ' current' : '') + (i >= s.record_at ? ' ahead' : '');
    el.setAttribute('data-ply', String(i + 1));
    el.textContent = `${i + 1}. ${m}`;
    return el;
  });
  $('history').replaceChildren(...items.flatMap((el, i) => (i ? [document.createTextNode('  '), el] : [el])));
  $('study-ply').textContent = `${s.record_at} / ${record.length}`;
  const noSteps = !!s.clock || ui.busy;
  $('study-first').disabled = $('study-back').disabled = noSteps || s.record_at === 0;
  $('study-forward').disabled = $('study-last').disabled = noSteps || s.record_at >= record.length;
}

function loadStudy() {
  return act(async () => {
    const text = $('study-text').value;
    const state = await api('POST', '/api/load', {text, variant: $('variant').value});
    if ([...$('variant').options].some((o) => o.value === state.variant)) $('variant').value = state.variant;
    showSeatControls();
    ui.analysis = null;
    setState(state);
    $('study-download').hidden = true;
    showMessage(`Loaded a ${state.variant} game of ${state.record.length} moves: step through it with the arrows ` +
                'or a click on a move; a move of your own starts a new line from there.', 'info');
    openingsGo(null, []);
    if ($('study-analyse').checked) analyse();
  });
}

function stepTo(ply) {
  return act(async () => {
    if (!ui.state) return;
    const record = ui.state.record || ui.state.history;
    const to = Math.max(0, Math.min(record.length, ply));
    if (to === ui.state.record_at) return;
    const state = await api('POST', '/api/goto', {game: ui.state.game, ply: to});
    ui.analysis = null;
    setState(state);
    if ($('study-analyse').checked && !state.game_over) analyse();
  });
}

function exportKif() {
  return act(async () => {
    const r = await api('GET', `/api/kif?game=${encodeURIComponent(ui.state.game)}`);
    $('study-text').value = r.kif;
    const link = $('study-download');
    if (link.href.startsWith('blob:')) URL.revokeObjectURL(link.href);
    link.href = URL.createObjectURL(new Blob([r.kif], {type: 'text/plain;charset=utf-8'}));
    link.hidden = false;
    showMessage('The record as KIF is in the box; "Download the KIF" saves it.', 'info');
  });
}

// ---- events ----------------------------------------------------------------------------------

function wireEvents() {
  $('board').addEventListener('click', (e) => {
    const sq = e.target.closest('[data-square]');
    if (sq) onSquareClick(sq.getAttribute('data-square'));
  });
  for (const id of ['hand-top', 'hand-bottom', 'hand-left', 'hand-right']) {
    $(id).addEventListener('click', (e) => {
      const item = e.target.closest('.hand-piece');
      if (item) onHandClick(item.getAttribute('data-hand'), item.getAttribute('data-letter'));
    });
  }
  // Drag and drop: picking a piece up selects it, dropping it on a square tries the move.
  document.addEventListener('dragstart', (e) => {
    const sq = e.target.closest('[data-square]');
    const hand = e.target.closest('.hand-piece');
    if (!ownTurn()) { e.preventDefault(); return; }
    if (sq) ui.selected = {from: sq.getAttribute('data-square')};
    else if (hand) ui.selected = {drop: hand.getAttribute('data-letter')};
    else return;
    e.dataTransfer.setData('text/plain', JSON.stringify(ui.selected));
    e.dataTransfer.effectAllowed = 'move';
    // Mark the targets in place: re-rendering would remove the node being dragged.
    const targets = new Set(legalFrom(ui.selected).map((m) => m.to));
    for (const el of document.querySelectorAll('#board [data-square]')) {
      el.classList.toggle('target', targets.has(el.getAttribute('data-square')));
      el.classList.toggle('selected', el.getAttribute('data-square') === ui.selected.from);
    }
  });
  $('board').addEventListener('dragover', (e) => {
    const sq = e.target.closest('[data-square]');
    if (!sq || !ui.selected) return;
    e.preventDefault();
    for (const el of document.querySelectorAll('.drag-over')) el.classList.remove('drag-over');
    sq.classList.add('drag-over');
  });
  $('board').addEventListener('drop', (e) => {
    e.preventDefault();
    const sq = e.target.closest('[data-square]');
    if (!sq || !ui.selected) return;
    const to = sq.getAttribute('data-square');
    if (ui.selected.from === to) { ui.selected = null; render(); return; }
    attempt(ui.selected, to);
  });
  document.addEventListener('dragend', () => {
    for (const el of document.querySelectorAll('.drag-over')) el.classList.remove('drag-over');
  });

  $('new-game').onclick = () => newGame();
  $('variant').onchange = () => showSeatControls();
  $('undo').onclick = () => undo();
  $('analyse').onclick = () => analyse();
  $('engine-move').onclick = () => act(async () => {
    if (ui.state && !ui.state.game_over && !ui.busy) await engineReply();
  });
  $('heat-toggle').onchange = () => { if ($('heat-toggle').checked && !heatValues()) analyse(); else render(); };
  $('letters-toggle').onchange = () => { render(); if (ui.openings.data) renderOpenings(); };
  $('study-load').onclick = () => loadStudy();
  $('study-first').onclick = () => stepTo(0);
  $('study-back').onclick = () => ui.state && stepTo(ui.state.record_at - 1);
  $('study-forward').onclick = () => ui.state && stepTo(ui.state.record_at + 1);
  $('study-last').onclick = () => ui.state && stepTo((ui.state.record || ui.state.history).length);
  $('study-kif').onclick = () => exportKif();
  $('history').addEventListener('click', (e) => {
    const item = e.target.closest('[data-ply]');
    if (item) stepTo(Number(item.getAttribute('data-ply')));
  });
  $('openings-root').onclick = () => openingsGo(null, []);
  $('openings-here').onclick = () => ui.state && openingsGo(ui.state.sfen, []);
  $('openings-up').onclick = () => {
    const path = ui.openings.path;
    if (path.length) openingsGo(path[path.length - 1].sfen, path.slice(0, -1));
  };
}

// ---- self-test (?selftest=1), used by tests/test_serve.cpp ------------------------------------

function boardSnapshot() {
  return [...document.querySelectorAll('#board [data-square]')]
      .map((el) => `${el.getAttribute('data-square')}:${el.getAttribute('data-piece') || ''}:${el.getAttribute('data-color') || ''}`)
      .join(' ');
}

function click(el) {
  if (!el) throw new Error('the element to click is missing');
  el.dispatchEvent(new MouseEvent('click', {bubbles: true}));
}

const squareEl = (sq) => document.querySelector(`#board [data-square="${sq}"]`);

// ?stop=NAME ends a scenario at that point (each scenario names its points), so that the DOM
// Chromium dumps shows the page as a person would see it there: the browser test checks the DOM
// itself rather than what the script says it saw.
const selftestStop = () => new URLSearchParams(location.search).get('stop');

// Runs one scenario and publishes what it did (done, or the error) where the browser test
// reads it from the dumped DOM.
async function runSelftest(scenario) {
  const out = {done: false};
  try {
    await scenario(out);
    out.done = true;
  } catch (e) {
    out.error = String(e && e.stack || e);
  }
  const result = $('selftest-result');
  result.textContent = JSON.stringify(out);
  result.setAttribute('data-done', 'true');
}

// Plays through the page's own handlers: clicks a pawn (or any piece) and a highlighted target,
// waits for the engine's reply, then tries a move the rules forbid, undoes, and plays the first
// move again by drag and drop. Stop points: targets (the first piece clicked), illegal (the
// forbidden move refused), drag (the piece picked up).
async function selftest() {
  await runSelftest(async (out) => {
    await ui.pending;
    const s = ui.state;
    out.game = s.game;
    const start = boardSnapshot();
    const moves = s.legal_moves.filter((m) => m.from);
    const pawnMove = moves.find((m) => s.board.find((b) => b.square === m.from).piece.name === 'pawn');
    const first = pawnMove || moves[0];
    out.selected = first.from;
    click(squareEl(first.from));
    if (selftestStop() === 'targets') return;
    click(squareEl(first.to));
    await ui.pending;
    out.game = ui.state.game;
    out.move = first.usi;
    out.history = ui.state.history;
    out.reply = ui.state.last_move && ui.state.last_move.usi;
    out.board_changed = boardSnapshot() !== start;
    out.side_to_move = ui.state.side_to_move;

    // An illegal move: one of the mover's pieces to a square none of its moves reaches.
    const st = ui.state;
    const own = st.board.filter((b) => b.piece && b.piece.color === st.side_to_move);
    let from = null, to = null;
    for (const b of own) {
      const reach = new Set(st.legal_moves.filter((m) => m.from === b.square).map((m) => m.to));
      const bad = st.board.find((t) => t.square !== b.square && !reach.has(t.square) &&
                                       !(t.piece && t.piece.color === st.side_to_move));
      if (bad) { from = b.square; to = bad.square; break; }
    }
    click(squareEl(from));
    click(squareEl(to));
    await ui.pending;
    out.illegal = {move: from + to};
    if (selftestStop() === 'illegal') return;

    // Undo (the button) takes back the reply and the move; then the same move by drag and drop.
    click($('undo'));
    await ui.pending;
    out.undo = {history: ui.state.history, board_is_start: boardSnapshot() === start};
    const data = new DataTransfer();
    const piece = squareEl(first.from).querySelector('.piece');
    piece.dispatchEvent(new DragEvent('dragstart', {bubbles: true, dataTransfer: data}));
    if (selftestStop() === 'drag') return;
    squareEl(first.to).dispatchEvent(new DragEvent('dragover', {bubbles: true, cancelable: true, dataTransfer: data}));
    squareEl(first.to).dispatchEvent(new DragEvent('drop', {bubbles: true, cancelable: true, dataTransfer: data}));
    piece.dispatchEvent(new DragEvent('dragend', {bubbles: true, dataTransfer: data}));
    await ui.pending;
    out.drag = {history: ui.state.history, reply: ui.state.last_move && ui.state.last_move.usi};
  });
}

// With ?selftest=promotion&sfen=...: clicks the first move that may promote or not and picks
// promotion in the dialog. Stop point: dialog (the dialog open).
async function selftestPromotion() {
  await runSelftest(async (out) => {
    await ui.pending;
    const s = ui.state;
    out.game = s.game;
    const promo = s.legal_moves.find((m) => m.from && m.flip &&
        s.legal_moves.some((o) => o.from === m.from && o.to === m.to && !o.flip));
    out.move = promo.usi;
    click(squareEl(promo.from));
    click(squareEl(promo.to));
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (selftestStop() === 'dialog') return;
    click(document.querySelector(`#choice-buttons [data-usi="${promo.usi}"]`));
    await ui.pending;
    out.history = ui.state.history;
  });
}

// With ?selftest=lion&sfen=...: plays the first double capture (a lion's move through an enemy
// piece, chu) by clicking the lion, the middle square and the final square.
async function selftestLion() {
  await runSelftest(async (out) => {
    await ui.pending;
    const s = ui.state;
    out.game = s.game;
    const lion = s.legal_moves.find((m) => m.mid && m.to !== m.from && !isEmpty(m.mid));
    out.move = lion.usi;
    click(squareEl(lion.from));
    click(squareEl(lion.mid));
    out.second_step = legalFrom(ui.selected).map((m) => m.to);
    click(squareEl(lion.to));
    await ui.pending;
    out.history = ui.state.history;
  });
}

// With ?selftest=burn&sfen=... (mitsugumi): plays the first move that lands next to two enemies
// and burns both, by clicking the fire demon, the square and the burn in the dialog; with
// &igui=1, the first double igui instead, by clicking the piece twice. Stop point: dialog.
async function selftestBurn() {
  await runSelftest(async (out) => {
    await ui.pending;
    const s = ui.state;
    out.game = s.game;
    const igui = new URLSearchParams(location.search).get('igui') === '1';
    const burn = s.legal_moves.find((m) => m.burns.length === 2 && (m.to === m.from) === igui);
    out.move = burn.usi;
    click(squareEl(burn.from));
    click(squareEl(burn.to));
    await new Promise((resolve) => setTimeout(resolve, 0));
    out.choices = [...document.querySelectorAll('#choice-buttons button')].map((b) => b.textContent);
    if (selftestStop() === 'dialog') return;
    click(document.querySelector(`#choice-buttons [data-usi="${burn.usi}"]`));
    await ui.pending;
    out.history = ui.state.history;
  });
}

// With ?selftest=letters: how each piece's big text sits, in kanji and then in letters mode
// (the Letters box clicked): `upright` when the text is turned exactly as much as its tile (or
// the tile not at all), read from the computed styles.
async function selftestLetters() {
  await runSelftest(async (out) => {
    await ui.pending;
    out.game = ui.state.game;
    const turned = (el) => {
      const t = getComputedStyle(el).transform;
      return t !== 'none' && t.startsWith('matrix(-1');
    };
    const look = () => [...document.querySelectorAll('#board .piece')].map((p) => {
      const span = p.querySelector('.kanji');
      const square = p.closest('[data-square]');
      return {square: square.getAttribute('data-square'), color: square.getAttribute('data-color'),
              text: span.textContent, small: p.querySelector('.token').textContent,
              tile_turned: turned(p), text_upright: turned(p) === turned(span)};
    });
    out.kanji = look();
    $('letters-toggle').click();
    await ui.pending;
    out.letters = look();
  });
}

// With ?selftest=study&game=TEXT: pastes the game, loads it, steps back twice with the arrow
// and forward once by a click on the record, then exports KIF. Stop points: loaded, stepped.
async function selftestStudy() {
  await runSelftest(async (out) => {
    await ui.pending;
    $('study-text').value = new URLSearchParams(location.search).get('game');
    click($('study-load'));
    await ui.pending;
    out.loaded = {variant: ui.state.variant, record: ui.state.record, ply: ui.state.record_at, sfen: ui.state.sfen};
    if (selftestStop() === 'loaded') return;
    click($('study-back'));
    await ui.pending;
    click($('study-back'));
    await ui.pending;
    out.back = {ply: ui.state.record_at, sfen: ui.state.sfen, shown: $('study-ply').textContent};
    click(document.querySelector('#history [data-ply="3"]'));
    await ui.pending;
    out.clicked = {ply: ui.state.record_at, sfen: ui.state.sfen};
    if (selftestStop() === 'stepped') return;
    click($('study-kif'));
    await ui.pending;
    out.kif = $('study-text').value;
    out.download = !$('study-download').hidden;
    out.game = ui.state.game;
  });
}

// With ?selftest=analyse: presses Analyse and publishes the analysis the page received.
async function selftestAnalyse() {
  await runSelftest(async (out) => {
    await ui.pending;
    out.game = ui.state.game;
    click($('analyse'));
    await ui.pending;
    const a = ui.analysis;
    out.analysis = {side_to_move: a.side_to_move, win_rate: a.win_rate, wdl: a.wdl};
  });
}

// With ?selftest=preview: points at the explorer's second move and waits for its board.
async function selftestPreview() {
  await runSelftest(async (out) => {
    await ui.pending;
    out.game = ui.state.game;
    const rows = document.querySelectorAll('#openings-list tbody tr');
    const row = rows[1] || rows[0];
    row.dispatchEvent(new MouseEvent('mouseenter'));
    await ui.preview.pending;
    out.sfen = ui.openings.data.sfen;
    out.move = row.getAttribute('data-move');
  });
}

// With ?selftest=clock&clock=...: the person (sente) does not move; the page keeps asking the
// server until the flag falls (the server's clock is the real one, whatever the page's timers do).
async function selftestClock() {
  await runSelftest(async (out) => {
    await ui.pending;
    out.game = ui.state.game;
    out.clock_text = ui.state.clock && ui.state.clock.text;
    for (let i = 0; i < 20000 && !ui.state.game_over; ++i) {
      ui.clockRefresh = 0;
      await refreshState();
    }
    out.game_over = ui.state.game_over;
  });
}

// With ?selftest=yonin&variant=yonin&humans=SEATS: the engine plays the other seats until a
// person is to move; then the page clicks one of that person's pawns and a target, and the
// engine plays on to the person's next turn. Publishes the board's rows as drawn.
async function selftestYonin() {
  await runSelftest(async (out) => {
    await ui.pending;
    const s = ui.state;
    out.game = s.game;
    out.viewer = viewer();
    out.before = {side_to_move: s.side_to_move, history: s.history};
    out.top_labels = [...$('file-labels').children].map((d) => d.textContent);
    out.side_labels = [...$('rank-labels').children].map((d) => d.textContent);
    out.hands = ['hand-bottom', 'hand-left', 'hand-top', 'hand-right'].map((id) => $(id).getAttribute('data-hand'));
    const pawn = s.legal_moves.find((m) => m.from &&
        s.board.find((b) => b.square === m.from).piece.name === 'pawn' && !m.flip);
    out.move = pawn.usi;
    click(squareEl(pawn.from));
    click(squareEl(pawn.to));
    await ui.pending;
    out.history = ui.state.history;
  });
}

// ---- start -----------------------------------------------------------------------------------

// Without a CJK font the kanji would be empty boxes: then the pieces show letters. Two
// different kanji drawn alike means both fell back to the same "missing glyph" box.
function kanjiFontAvailable() {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 40;
  const g = canvas.getContext('2d');
  if (!g) return true;
  const draw = (ch) => {
    g.clearRect(0, 0, 40, 40);
    g.font = '32px "Noto Serif CJK JP", "Noto Sans CJK JP", serif';
    g.fillText(ch, 2, 34);
    return g.getImageData(0, 0, 40, 40).data.join(',');
  };
  return draw('歩') !== draw('金');
}

async function main() {
  wireEvents();
  setInterval(renderClocks, 100);
  if (!kanjiFontAvailable()) $('letters-toggle').checked = true;
  const params = new URLSearchParams(location.search);
  try {
    const v = await api('GET', '/api/variants');
    ui.variants = v.variants;
    $('variant').replaceChildren(...v.variants.map((x) => {
      const o = document.createElement('option');
      o.value = x.name;
      o.textContent = `${x.name} (${x.files}x${x.ranks})`;
      o.title = `${x.description}; engine: ${x.engine}`;
      return o;
    }));
    $('variant').value = params.get('variant') || v.default;
    if (params.get('side')) $('side').value = params.get('side');
    if (params.get('humans')) {
      const wanted = params.get('humans').split(',');
      for (const box of document.querySelectorAll('#seats input')) box.checked = wanted.includes(box.getAttribute('data-seat'));
    }
    showSeatControls();
    if (params.get('heat')) $('heat-toggle').checked = true;
    if (params.get('clock')) {
      const o = document.createElement('option');
      o.value = o.textContent = params.get('clock');
      $('clock').append(o);
      $('clock').value = params.get('clock');
    }
  } catch (e) {
    showMessage(e.message, 'error');
    return;
  }
  await newGame(params.get('sfen'));
  if (params.get('selftest') === 'promotion') await selftestPromotion();
  else if (params.get('selftest') === 'lion') await selftestLion();
  else if (params.get('selftest') === 'burn') await selftestBurn();
  else if (params.get('selftest') === 'letters') await selftestLetters();
  else if (params.get('selftest') === 'analyse') await selftestAnalyse();
  else if (params.get('selftest') === 'study') await selftestStudy();
  else if (params.get('selftest') === 'preview') await selftestPreview();
  else if (params.get('selftest') === 'clock') await selftestClock();
  else if (params.get('selftest') === 'yonin') await selftestYonin();
  else if (params.get('selftest')) await selftest();
}

main();
