// The API documentation page (/docs): the operations of /openapi.json, each with
// its example body and a button that sends it. No third-party code.
"use strict";

function operationBox(path, method, operation) {
  const box = document.createElement("section");
  box.className = "operation";
  const title = document.createElement("h2");
  title.textContent = `${method.toUpperCase()} ${path}`;
  const summary = document.createElement("p");
  summary.textContent = operation.summary || "";
  box.append(title, summary);
  const example = operation.requestBody?.content?.["application/json"]?.example;
  const body = document.createElement("textarea");
  body.rows = 3;
  body.value = example === undefined ? "" : JSON.stringify(example);
  body.hidden = example === undefined;
  const target = document.createElement("input");
  target.value = path;
  const send = document.createElement("button");
  send.textContent = "Send";
  const answer = document.createElement("pre");
  send.addEventListener("click", async () => {
    const init = { method: method.toUpperCase(), headers: { "Content-Type": "application/json" } };
    if (!body.hidden) init.body = body.value;
    const response = await fetch(target.value, init);
    const text = await response.text();
    try {
      answer.textContent = `${response.status}\n${JSON.stringify(JSON.parse(text), null, 2)}`;
    } catch {
      answer.textContent = `${response.status}\n${text}`;
    }
  });
  box.append(body, target, send, answer);
  return box;
}

async function showOperations() {
  const spec = await (await fetch("/openapi.json")).json();
  const out = document.getElementById("operations");
  for (const [path, methods] of Object.entries(spec.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      out.append(operationBox(path, method, operation));
    }
  }
}

document.addEventListener("DOMContentLoaded", showOperations);
