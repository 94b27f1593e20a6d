/* srbf results explorer, the first script: the data receiver, the theme before the first paint,
 * and the first view's data requested at once, so it arrives while the other scripts are read. */
"use strict";

window.SRBF = {
  data: {},
  waiting: {},
  receive(name, value) {
    this.data[name] = value;
    (this.waiting[name] || []).forEach((done) => done(value));
    delete this.waiting[name];
  },
};

/* A data file by name (data/NAME.js): a script element, because file:// pages cannot fetch. */
function load(name) {
  if (SRBF.data[name]) return Promise.resolve(SRBF.data[name]);
  return new Promise((resolve, reject) => {
    (SRBF.waiting[name] = SRBF.waiting[name] || []).push(resolve);
    if (document.querySelector(`script[data-file="${name}"]`)) return;
    const script = document.createElement("script");
    script.src = `data/${name}.js`;
    script.dataset.file = name;
    script.onerror = () => reject(new Error(`cannot load data/${name}.js`));
    document.head.append(script);
  });
}

(function () {
  const params = new URLSearchParams(location.hash.slice(1));
  const theme = params.get("theme");
  const dark = theme ? theme === "dark" : window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches;
  document.documentElement.dataset.theme = dark ? "dark" : "light";
  const quiet = () => {}; // app.js reports a missing file when it asks for it
  load("manifest").then((manifest) => {
    const c = Math.min(manifest.conditions.length - 1, Math.max(0, parseInt(params.get("c"), 10) || 0));
    const set = parseInt(params.get("set"), 10) || 0;
    if (set >= 0 && set < manifest.conditions[c].scopes.length) load(`c${c}-s${set}`).catch(quiet);
  }, quiet);
})();
