window.crownLoads = (window.crownLoads || 0) + 1;
window.crownUpdates = 0;
function shownGeneration() {
  const g = document.getElementById("generation");
  return g ? g.dataset.generation : "";
}
async function refresh(gen) {
  if (gen === shownGeneration()) return;
  const r = await fetch("/fragment", { cache: "no-store" });
  document.getElementById("main").innerHTML = await r.text();
  window.crownUpdates += 1;
  document.getElementById("live").textContent = "live: generation " + shownGeneration();
}
const events = new EventSource("/events");
events.addEventListener("reload", (e) => { refresh(e.data); });
events.onopen = () => { document.getElementById("live").textContent = "live: generation " + shownGeneration(); };
events.onerror = () => { document.getElementById("live").textContent = "disconnected; retrying…"; };
