// The replay viewer: frames come from the server (POST /api/replay), every hand shown; step
// forward and back, export the game record, import a record, an evaluation record or a playthrough.
"use strict";

let replay = null, index = 0, evaluation = null;

function showError(text) { document.getElementById("replay-error").textContent = text; }

async function load(body) {
  showError("");
  const response = await fetch("/api/replay", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const answer = await response.json();
  if (!response.ok) { showError(typeof answer.detail === "string" ? answer.detail : JSON.stringify(answer.detail)); return; }
  replay = answer;
  document.getElementById("slider").max = String(replay.frames.length - 1);
  document.getElementById("export").disabled = false;
  go(0);
}

function go(i) {
  if (!replay) return;
  index = Math.max(0, Math.min(replay.frames.length - 1, i));
  const f = replay.frames[index];
  const ctx = {labels: replay.record.seats, viewer: null, showHands: true, width: boardWidth()};
  document.getElementById("board").innerHTML = boardHTML(f, ctx);
  document.getElementById("log").innerHTML = logHTML(f, ctx);
  document.getElementById("slider").value = String(index);
  document.getElementById("position").textContent = `move ${index} of ${replay.frames.length - 1}`;
  document.getElementById("move").textContent = f.move
    ? `Move ${f.move.number}: ${replay.record.seats[f.move.seat]} — ${f.move.text}` : "The deal.";
}

function exportRecord() {
  const blob = new Blob([JSON.stringify(replay.record, null, 1)], {type: "application/json"});
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = "domino-game.json";
  link.click();
}

async function openFile(file) {
  const text = await file.text();
  document.getElementById("record-label").hidden = true;
  if (file.name.endsWith(".txt")) { load({playthrough: text}); return; }
  let data;
  try { data = JSON.parse(text); } catch (err) { showError(`${file.name} is not JSON: ${err.message}`); return; }
  if (data && Array.isArray(data.records) && data.agents) {  // an evaluation's results.json: pick a record
    evaluation = data;
    const label = document.getElementById("record-label");
    label.hidden = false;
    document.getElementById("record-index").max = String(data.records.length - 1);
    return;
  }
  load({record: data});
}

document.getElementById("file").addEventListener("change", e => e.target.files[0] && openFile(e.target.files[0]));
document.getElementById("load-record").addEventListener("click", () =>
  load({evaluation, index: Number(document.getElementById("record-index").value)}));
document.getElementById("export").addEventListener("click", exportRecord);
document.getElementById("first").addEventListener("click", () => go(0));
document.getElementById("back").addEventListener("click", () => go(index - 1));
document.getElementById("forward").addEventListener("click", () => go(index + 1));
document.getElementById("last").addEventListener("click", () => go(Infinity));
document.getElementById("slider").addEventListener("input", e => go(Number(e.target.value)));
document.addEventListener("keydown", e => {
  if (e.target.closest && e.target.closest("input, select, textarea")) return;  // the slider steps itself
  if (e.key === "ArrowRight") go(index + 1);
  if (e.key === "ArrowLeft") go(index - 1);
});
window.addEventListener("resize", () => go(index));

const table = new URLSearchParams(location.search).get("table");
if (table) {
  fetch(`/api/tables/${encodeURIComponent(table)}/record`).then(async r => {
    const answer = await r.json();
    if (r.ok) load({record: answer}); else showError(answer.detail);
  });
}
