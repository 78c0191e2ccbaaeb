// Browser tests of chapter 10's charts in each edition of the built book
// (BOOK_HTML, default book/html, behind lib/static-server.js): every chart
// image of ja/ch10 and zh/ch10 loads, is that edition's chart, and its SVG
// says its text is in the edition's language, names a font stack with the
// edition's CJK glyphs first, and writes Japanese on ja pages and Chinese on
// zh pages. The charts are drawn by tools/bench-report from
// data/bench/results.toml and data/bench/labels.toml. Run with ./run, after
// `mdbook build`.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { EDITIONS, REPO, SCREENSHOTS } from './lib/book.js';
import { launchBrowser, newContext, openPage } from './lib/browser.js';
import { serveStatic } from './lib/static-server.js';

const ROOT = process.env.BOOK_HTML ?? path.join(REPO, 'book/html');

// Kana is Japanese only; Chinese is Han without kana.
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const HAN = /\p{Script=Han}/u;
const LANGUAGE = {
    ja: { font: 'Noto Sans CJK JP', is: text => KANA.test(text), name: 'Japanese (kana)' },
    zh: { font: 'Noto Sans CJK SC', is: text => HAN.test(text) && !KANA.test(text), name: 'Chinese (Han, no kana)' },
};
// Chapter 10 draws twelve charts (tools/bench-report/src/charts.rs). mdBook
// writes each image twice (the page's and its zoomed copy): count files.
const CHARTS = 12;

let browser;
let server;
before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    browser = await launchBrowser();
    server = await serveStatic(ROOT);
});
after(async () => {
    await browser?.close();
    await server?.close();
});

// In the page: each chart image once it has loaded or failed, with what its
// SVG file says (fetched again, as the image's bytes are not readable).
function readCharts(imgs) {
    const loaded = img => img.complete
        ? Promise.resolve()
        : new Promise(done => { img.onload = img.onerror = done; });
    return Promise.all(imgs.map(async img => {
        await loaded(img);
        const response = await fetch(img.src);
        const svg = new DOMParser()
            .parseFromString(await response.text(), 'image/svg+xml')
            .documentElement;
        return {
            src: img.getAttribute('src'),
            width: img.naturalWidth,
            type: response.headers.get('content-type'),
            root: svg.localName,
            lang: svg.getAttribute('lang'),
            xmlLang: svg.getAttributeNS('http://www.w3.org/XML/1998/namespace', 'lang'),
            font: svg.getAttribute('font-family') ?? '',
            title: svg.querySelector('title')?.textContent ?? '',
            text: [...svg.querySelectorAll('text')].map(t => t.textContent).join('\n'),
        };
    }));
}

const shown = {};
for (const [edition, { lang }] of Object.entries(EDITIONS)) {
    test(`the charts of ${edition}/ch10 load and are written in ${edition}`, async () => {
        const context = await newContext(browser);
        const name = `${edition}/ch10-measuring.html`;
        const language = LANGUAGE[edition];
        const problems = [];
        try {
            const { page, errors } = await openPage(context, new URL(name, server.url).href);
            const charts = await page.$$eval('main img[src*="charts/"]', readCharts);
            const files = [...new Set(charts.map(c => c.src))];
            problems.push(...charts.filter(c => c.width === 0).map(c => `${name}: ${c.src} did not load`));
            if (files.length !== CHARTS) problems.push(`${name}: ${files.length} charts, expected ${CHARTS}`);
            for (const chart of files.map(src => charts.find(c => c.src === src))) {
                const where = `${name}: ${chart.src}`;
                if (!chart.src.startsWith(`../charts/${edition}/`)) problems.push(`${where} is not a chart of ${edition}`);
                if (chart.type !== 'image/svg+xml') problems.push(`${where} is sent as ${chart.type}`);
                if (chart.root !== 'svg') problems.push(`${where} is not an SVG (root <${chart.root}>)`);
                if (chart.lang !== lang || chart.xmlLang !== lang) {
                    problems.push(`${where}: lang="${chart.lang}" xml:lang="${chart.xmlLang}", expected ${lang}`);
                }
                if (!chart.font.startsWith(`'${language.font}'`)) {
                    problems.push(`${where}: font-family="${chart.font}" does not start with ${language.font}`);
                }
                for (const [what, text] of [['title', chart.title], ['text', chart.text]]) {
                    if (!language.is(text)) problems.push(`${where}: its ${what} is not ${language.name}: ${JSON.stringify(text)}`);
                }
            }
            shown[edition] = files.map(src => path.basename(src));
            if (charts.length) {
                await page.locator('main img[src*="charts/"]').first()
                    .screenshot({ path: path.join(SCREENSHOTS, `${edition}-ch10-chart-language.png`) });
            }
            problems.push(...errors.map(e => `${name}: ${e}`));
            await page.close();
        } finally {
            await context.close();
        }
        if (problems.length) throw new Error(`charts not in ${edition}:\n  ${problems.join('\n  ')}`);
    });
}

// Top-level tests run one after the other, so both editions are read by now.
test('both editions show the same charts, in the same order', t => {
    if (!shown.ja || !shown.zh) return t.skip('an edition could not be read');
    assert.deepEqual(shown.ja, shown.zh);
});
