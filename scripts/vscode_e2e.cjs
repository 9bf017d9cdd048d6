// Drive code-server in Debian's Chromium: open the bad kernel, wait for the Problems panel to list the NKI
// diagnostic, save a screenshot.  Usage: node vscode_e2e.cjs URL SCREENSHOT PROFILE_DIR   (see vscode_e2e.sh)
const { chromium } = require("playwright-core");

const [url, screenshot, profile] = process.argv.slice(2);
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
  "--disable-sync", "--no-first-run"];

async function waitForServer(base, seconds) {
  for (let i = 0; i < seconds * 4; i++) {  // bounded: at most `seconds`
    try {
      const r = await fetch(`${base}/healthz`);
      if (r.ok) return;
    } catch (e) { /* not listening yet */ }
    await new Promise((res) => setTimeout(res, 250));
  }
  throw new Error(`code-server did not answer on ${base}`);
}

async function main() {
  await waitForServer(new URL(url).origin, 120);
  // headless: true adds --headless; launchPersistentContext owns the profile (no --user-data-dir argument)
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1440, height: 900 },
  });
  const page = context.pages()[0] || await context.newPage();
  try {
    await page.goto(url);
    await page.waitForSelector(".monaco-workbench", { timeout: 120000 });
    await page.waitForSelector(".explorer-folders-view .monaco-list-row", { timeout: 120000 });
    // open the kernel from the explorer
    await page.locator(".explorer-folders-view .monaco-list-row", { hasText: "tensor_add_bug.py" }).click();
    await page.waitForSelector(".monaco-editor .view-lines", { timeout: 60000 });
    // the Problems panel (View: Toggle Problems)
    await page.keyboard.press("Control+Shift+M");
    const row = page.locator(".markers-panel .monaco-list-row", { hasText: "NKI101" }).first();
    await row.waitFor({ timeout: 180000 });
    const rows = await page.locator(".markers-panel .monaco-list-row").allInnerTexts();
    // let the squiggles render before the picture (the panel already proved the diagnostics arrived)
    await page.waitForSelector(".monaco-editor .squiggly-error", { timeout: 30000 });
    // a hover on the first finding, for the screenshot (the mouse, not an element hover: overlays may cover it)
    const box = await page.locator(".monaco-editor .squiggly-error").first().boundingBox();
    if (box) {
      await page.mouse.move(box.x + Math.min(20, box.width / 2), box.y + box.height / 2);
      await page.waitForSelector(".monaco-hover-content", { state: "visible", timeout: 15000 })
        .catch(() => console.log("(no hover shown for the screenshot)"));
    }
    await page.screenshot({ path: screenshot });
    const nki = rows.filter((t) => t.includes("NKI101"));
    console.log(`Problems panel rows (${rows.length}):\n  ${rows.map((t) => t.replace(/\s+/g, " ")).join("\n  ")}`);
    if (nki.length < 3) throw new Error(`expected 3 NKI101 problems, saw ${nki.length}`);
    console.log(`OK: the Problems panel shows ${nki.length} NKI101 diagnostics; screenshot: ${screenshot}`);
  } catch (err) {
    await page.screenshot({ path: screenshot }).catch(() => undefined);
    throw err;
  } finally {
    await context.close();
  }
}

main().catch((err) => { console.error(`FAILED: ${err.stack || err}`); process.exit(1); });
