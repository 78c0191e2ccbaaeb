// Browser tests of the book: the reader's interface of both editions
// (theme/asyncbook-*.js and friends) in headless Chromium, against two servers:
// `mdbook serve` (its URL in MDBOOK_SERVE_URL, started by ./run) and the
// built book (BOOK_HTML, default book/html) behind a tiny static server.
// Run them with ./run, after `mdbook build`.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BOOK_HTML, EDITIONS, EDITION_PAGES, PRINT_PAGES, SCREENSHOTS, editionOf, otherEditionPage, programsOf } from './lib/book.js';
import { launchBrowser, newContext, openPage } from './lib/browser.js';
import { serveStatic } from './lib/static-server.js';
import { buildProgram, normaliseDurations, recordedOutput, removeProject, runProgram } from './lib/rust.js';

const SERVERS = [
    { name: 'mdbook serve', url: process.env.MDBOOK_SERVE_URL },
    // Screenshots are taken once, of the built book (what gets published).
    { name: 'static book/html', root: BOOK_HTML, screenshots: true },
];

// Japanese is kana or kanji; Chinese is Han.
const SCRIPT = {
    ja: /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/u,
    zh: /\p{Script=Han}/u,
};

// mdBook 0.5.4's interface in English: every title, aria-label, placeholder
// and label text of front-end/templates/index.hbs, and the strings
// front-end/js/book.js writes (in ~/.cargo/registry/src/*/mdbook-html-0.5.4/).
const MDBOOK_ENGLISH = new Set([
    // index.hbs
    'Table of contents', 'Toggle Table of Contents', 'Change theme', 'Themes',
    'Auto', 'Light', 'Rust', 'Coal', 'Navy', 'Ayu',
    'Search (`/`)', 'Toggle Searchbar', 'Search this book ...',
    'Print this book', 'Git repository', 'Suggest an edit',
    'Page navigation', 'Previous chapter', 'Next chapter', 'Keyboard shortcuts',
    // book.js
    'Show hidden lines', 'Hide lines', 'Copy to clipboard', 'Run this code',
    'Undo changes', 'Running...', 'No output', 'Copied!', 'Clipboard error!',
]);

// Theme names that are proper names, not words: a Japanese or Chinese
// interface calls these themes Rust and Ayu too, so they stay as they are.
const PROPER_NAMES = new Set(['Rust', 'Ayu']);

let browser;
before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    browser = await launchBrowser();
});
after(async () => {
    await browser?.close();
    removeProject();
});

// Runs `fn(context)` in a fresh browser context that is closed afterwards.
async function withContext(fn) {
    const context = await newContext(browser);
    try {
        return await fn(context);
    } finally {
        await context.close();
    }
}

// Waits until `predicate(arg)` holds in the page; on timeout, fails with
// `what` and, if given, what `explain(arg)` says about the page then.
async function waitInPage(page, what, predicate, arg, { timeout = 10_000, explain } = {}) {
    try {
        await page.waitForFunction(predicate, arg, { timeout, polling: 100 });
    } catch (err) {
        const detail = explain ? await page.evaluate(explain, arg).catch(() => '') : '';
        throw new Error(`timed out after ${timeout} ms waiting for ${what}${detail ? `: ${detail}` : ''}`, { cause: err });
    }
}

// Waits until every mermaid diagram on the page has been drawn (or has given
// up). mdbook-mermaid turns ```mermaid into <pre class="mermaid">; mermaid.js
// renders it after load and marks it data-processed.
function diagramsDone(page) {
    return waitInPage(page, 'mermaid to draw the diagrams',
        () => [...document.querySelectorAll('pre.mermaid')].every(pre => pre.dataset.processed || pre.querySelector('svg')),
        null, { timeout: 20_000 });
}

// Runs `fn` on every item, at most `limit` at a time.
async function inParallel(items, limit, fn) {
    const queue = [...items];
    const worker = async () => {
        while (queue.length) {
            await fn(queue.shift());
        }
    };
    await Promise.all(Array.from({ length: limit }, worker));
}

// Fails with every problem found, one per line, rather than the first.
function assertNone(problems, what) {
    if (problems.length) {
        assert.fail(`${what}:\n  ${[...new Set(problems)].join('\n  ')}`);
    }
}

function pathOf(href) {
    return new URL(href).pathname;
}

for (const server of SERVERS) {
    describe(`against ${server.name}`, { skip: !server.url && !server.root && 'MDBOOK_SERVE_URL is not set (use ./run)' }, () => {
        let base; // the server's URL, ending in "/"
        let staticServer = null;
        before(async () => {
            if (server.root) {
                staticServer = await serveStatic(server.root);
            }
            base = staticServer ? staticServer.url : server.url;
        });
        after(() => staticServer?.close());

        const url = page => new URL(page, base).href;
        const inFolder = (href, folder) => pathOf(href).startsWith(new URL(`${folder}/`, base).pathname);
        // A screenshot of a page's viewport, or of one element (a locator).
        const shot = async (pageOrElement, name, options = {}) => {
            if (server.screenshots) {
                await pageOrElement.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), ...options });
            }
        };

        // Tests 1, 2, 5 and 7 look at every page. Loading a page costs about
        // half a second here, an edition's print page (the whole edition, 1.5
        // MB, with every diagram) several on a loaded two-core machine, so each
        // page is visited once per server, three at a time, and what those
        // tests need is recorded on the way.
        let tour = null;
        const visitEveryPage = () => (tour ??= withContext(async context => {
            const facts = new Map();
            // The print pages first: they take longest.
            await inParallel([...PRINT_PAGES, 'index.html', ...EDITION_PAGES], 3, async name => {
                const { page, errors } = await openPage(context, url(name), {
                    timeout: PRINT_PAGES.includes(name) ? 120_000 : 30_000,
                });
                // Errors may come after load: mermaid draws then, for one.
                await diagramsDone(page).catch(() => {});
                await page.waitForTimeout(200);
                const edition = EDITION_PAGES.includes(name) ? editionOf(name) : null;
                facts.set(name, {
                    errors,
                    lang: await page.evaluate(() => document.documentElement.lang),
                    picker: await page.evaluate(() => document.getElementById('asyncbook-lang-switch')?.href ?? null),
                    ...(edition && await page.evaluate(readNavigation, {
                        other: new URL(`${EDITIONS[edition].other}/`, base).pathname,
                        partTitles: Object.values(EDITIONS).map(e => e.label),
                    })),
                });
                if (name.endsWith('/appendix-glossary.html')) {
                    await shot(page, `${edition}-glossary`);
                }
                await page.close();
            });
            return facts;
        }));

        test('1. every edition page has <html lang> of its edition, as served and after load', async () => {
            const facts = await visitEveryPage();
            const problems = [];
            for (const name of EDITION_PAGES) {
                const want = EDITIONS[editionOf(name)].lang;
                const html = await (await fetch(url(name))).text();
                const served = /<html\b[^>]*?\slang="([^"]*)"/i.exec(html)?.[1];
                if (served !== want) {
                    problems.push(`${name}: served <html lang="${served}">, want "${want}"`);
                }
                if (facts.get(name).lang !== want) {
                    problems.push(`${name}: document.documentElement.lang is "${facts.get(name).lang}" after load, want "${want}"`);
                }
            }
            assertNone(problems, 'pages without their edition\'s lang');
        });

        test('2. the language picker opens the same section in the other edition', () => withContext(async context => {
            // On every page, it links to the same file in the other edition.
            const facts = await visitEveryPage();
            const wrong = EDITION_PAGES
                .filter(name => !facts.get(name).picker || pathOf(facts.get(name).picker) !== pathOf(url(otherEditionPage(name))))
                .map(name => `${name}: picker links to ${facts.get(name).picker}`);
            assertNone(wrong, 'pickers that do not link to the same file in the other edition');

            // With a #hash in the URL: that section.
            const { page } = await openPage(context, url('ja/ch02-wakers-and-timer.html#lost-wakeup'));
            const picker = page.locator('#asyncbook-lang-switch');
            assert.equal(pathOf(await picker.evaluate(a => a.href)), pathOf(url('zh/ch02-wakers-and-timer.html')),
                'the picker on ja/ch02 links to zh/ch02');
            await picker.click();
            await page.waitForURL(url('zh/ch02-wakers-and-timer.html#lost-wakeup'));
            // The diagram above the section is drawn after load: the heading
            // must still be in view once it is.
            await diagramsDone(page);
            await waitInPage(page, '#lost-wakeup to be in the viewport', () => {
                const box = document.getElementById('lost-wakeup')?.getBoundingClientRect();
                return box && box.top >= 0 && box.bottom <= innerHeight;
            }, null, {
                timeout: 5000,
                explain: () => `its top is at ${document.getElementById('lost-wakeup')?.getBoundingClientRect().top} px, the viewport is ${innerHeight} px high`,
            });
            assert.equal(pathOf(await picker.evaluate(a => a.href)), pathOf(url('ja/ch02-wakers-and-timer.html')),
                'the picker on zh/ch02 links back to ja/ch02');
            await shot(page, 'zh-ch02-after-switching-from-ja');

            // Without a hash: the section the reader has scrolled to.
            await page.goto(url('zh/ch03-executor.html'));
            assert.equal(pathOf(await picker.evaluate(a => a.href)), pathOf(url('ja/ch03-executor.html')),
                'the picker on zh/ch03 links to ja/ch03');
            // Diagrams above the section change the layout as they are drawn.
            await diagramsDone(page);
            await page.evaluate(() => document.getElementById('blocking-wake').scrollIntoView());
            // The picker follows scrolling (at most every 150 ms).
            await waitInPage(page, 'the picker to follow the scroll to #blocking-wake',
                () => document.getElementById('asyncbook-lang-switch')?.href.endsWith('#blocking-wake'), null, {
                    timeout: 5000,
                    explain: () => `it links to ${document.getElementById('asyncbook-lang-switch')?.href}`,
                });
            await picker.click();
            await page.waitForURL(url('ja/ch03-executor.html#blocking-wake'), { timeout: 5000 })
                .catch(err => {
                    throw new Error(`the picker led to ${page.url()}, not ja/ch03-executor.html#blocking-wake`, { cause: err });
                });
            await shot(page, 'ja-ch03-after-switching-from-zh');
        }));

        const SEARCHES = [
            { page: 'zh/ch01-future-trait.html', term: '执行器' },
            { page: 'ja/ch01-future-trait.html', term: 'エグゼキューター' },
        ];
        for (const { page: start, term } of SEARCHES) {
            const edition = editionOf(start);
            test(`3. search on ${start} for ${term} finds ${edition}/ pages and highlights the term there`, () => withContext(async context => {
                const { page } = await openPage(context, url(start));
                await page.click('#mdbook-search-toggle');
                await page.fill('#mdbook-searchbar', term);
                // Pagefind loads its script, wasm and index on first use.
                await waitInPage(page, 'search results',
                    () => document.querySelectorAll('#mdbook-searchresults li a').length > 0, null, {
                        timeout: 30_000,
                        explain: () => `results header says ${JSON.stringify(document.getElementById('mdbook-searchresults-header')?.textContent)}`,
                    });
                const results = await page.$$eval('#mdbook-searchresults li', items => items.map(li => ({
                    href: li.querySelector('a').href,
                    marks: [...li.querySelectorAll('mark')].map(m => m.textContent),
                    // The result's text with each <mark> shown as [text].
                    text: (function show(node) {
                        return node.nodeName === 'MARK' ? `[${node.textContent}]`
                            : node.nodeType === Node.TEXT_NODE ? node.textContent
                                : [...node.childNodes].map(show).join('');
                    })(li),
                })));
                await shot(page, `${edition}-search-results`);
                assertNone(results.filter(r => !inFolder(r.href, edition)).map(r => r.href), `results outside ${edition}/`);
                assert.ok(results.some(r => r.marks.some(m => m.includes(term))),
                    `no result has a <mark> containing ${term}; the first results, marks in [ ]:\n  ${results.slice(0, 3).map(r => r.text).join('\n  ')}`);

                await page.click('#mdbook-searchresults li a');
                await page.waitForURL(u => u.pathname !== pathOf(url(start)) || u.hash !== '');
                assert.ok(inFolder(page.url(), edition), `the first result, ${page.url()}, is in ${edition}/`);
                await waitInPage(page, `a <mark> of ${term} in main`,
                    t => [...document.querySelectorAll('main mark')].some(m => m.textContent.includes(t)), term, {
                        explain: () => `marks in main: ${JSON.stringify([...document.querySelectorAll('main mark')].map(m => m.textContent).slice(0, 10))}`,
                    });
            }));
        }

        test('3b. Pagefind has one index per edition, holding exactly that edition\'s pages', async () => {
            const entry = await (await fetch(url('pagefind/pagefind-entry.json'))).json();
            const want = Object.fromEntries(Object.entries(EDITIONS).map(([dir, e]) =>
                [e.lang.toLowerCase(), EDITION_PAGES.filter(p => editionOf(p) === dir).length]));
            const got = Object.fromEntries(Object.entries(entry.languages).map(([lang, l]) => [lang, l.page_count]));
            assert.deepEqual(got, want, 'pages per index language');
        });

        test('3c. a search that cannot load Pagefind says so, and the next keystroke tries again', () => withContext(async context => {
            // The server refuses Pagefind's script until it is back up.
            let up = false;
            let refused = 0;
            await context.route(/\/pagefind\/pagefind\.js(\?|$)/, route => {
                if (!up) {
                    refused += 1;
                    return route.abort('connectionrefused');
                }
                return route.fallback();
            });
            const { page } = await openPage(context, url('zh/ch03-executor.html'));
            await page.click('#mdbook-search-toggle');
            await page.fill('#mdbook-searchbar', '执行器');
            await waitInPage(page, 'the search to say it is unavailable',
                () => /\p{Script=Han}/u.test(document.getElementById('mdbook-searchresults-header')?.textContent ?? '')
                    && document.querySelectorAll('#mdbook-searchresults li').length === 0, null, { timeout: 30_000 });
            const unavailable = await page.locator('#mdbook-searchresults-header').textContent();
            up = true;
            await page.fill('#mdbook-searchbar', '执行');
            await waitInPage(page, 'results after the retry',
                () => document.querySelectorAll('#mdbook-searchresults li a').length > 0, null, {
                    timeout: 30_000,
                    explain: () => `results header says ${JSON.stringify(document.getElementById('mdbook-searchresults-header')?.textContent)}`,
                });
            assert.ok(refused >= 1, 'loads were refused while the server was down');
            assert.notEqual(await page.locator('#mdbook-searchresults-header').textContent(), unavailable);
        }));

        test('3d. opened from a file, the search box says that searching needs the book served', {
            skip: !server.root && 'only the built book can be opened from its files',
        }, () => withContext(async context => {
            for (const start of ['ja/ch03-executor.html', 'zh/ch03-executor.html']) {
                const { page } = await openPage(context, pathToFileURL(path.join(server.root, start)).href);
                await page.click('#mdbook-search-toggle');
                await page.fill('#mdbook-searchbar', editionOf(start) === 'ja' ? 'ウェイカー' : '执行器');
                await waitInPage(page, `${start}: the search to say it needs the book served`,
                    () => (document.getElementById('mdbook-searchresults-header')?.textContent ?? '').includes('mdbook serve'),
                    null, {
                        explain: () => `results header says ${JSON.stringify(document.getElementById('mdbook-searchresults-header')?.textContent)}`,
                    });
                assert.equal(await page.locator('#mdbook-searchresults li').count(), 0, `${start}: no results listed`);
                await page.close();
            }
        }));

        describe('4. the copy button copies a whole program, which compiles (and runs as the book shows)', () => {
            // Blocks are picked by what they show (the caption the
            // preprocessor writes above a fragment, or the appendix section
            // of a listing file), not by position.
            const BLOCKS = [
                { page: 'ja/ch01-future-trait.html', shows: 'listings/src/simple_future.rs' },
                { page: 'ja/ch01-future-trait.html', shows: 'listings/examples/ch01_join.rs' },
                { page: 'ja/ch02-wakers-and-timer.html', shows: 'listings/src/timer.rs' },
                { page: 'ja/ch02-wakers-and-timer.html', shows: 'listings/examples/ch02_timer.rs' },
                { page: 'zh/ch03-executor.html', shows: 'listings/src/executor.rs' },
                { page: 'zh/ch03-executor.html', shows: 'listings/examples/ch03_howdy.rs' },
                { page: 'zh/ch04-state-machine.html', shows: 'listings/src/state_machine.rs' },
                { page: 'zh/ch04-state-machine.html', shows: 'listings/examples/ch04_three_lines.rs' },
                { page: 'ja/ch08-epoll-reactor.html', shows: 'listings/src/epoll_reactor.rs' },
                { page: 'ja/ch08-epoll-reactor.html', shows: 'listings/examples/ch08_epoll.rs' },
                { page: 'zh/ch09-mini-runtime.html', shows: 'listings/src/runtime.rs' },
                { page: 'zh/ch09-mini-runtime.html', shows: 'listings/examples/ch09_runtime.rs' },
                { page: 'ja/ch10-measuring.html', shows: 'listings/src/fast_block_on.rs' },
                { page: 'ja/appendix-listings.html', section: 'listing-src-timer-rs' },
                { page: 'zh/appendix-listings.html', section: 'listing-examples-ch02-timer-rs' },
            ];
            let context;
            const opened = new Map(); // page name -> page, each loaded once
            before(async () => {
                context = await newContext(browser);
                await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(base).origin });
            });
            after(() => context?.close());

            for (const block of BLOCKS) {
                const label = `${block.page} ${block.shows ?? `#${block.section}`}`;
                test(label, async () => {
                    if (!opened.has(block.page)) {
                        opened.set(block.page, (await openPage(context, url(block.page))).page);
                    }
                    const page = opened.get(block.page);
                    const found = await page.evaluate(markBlock, block);
                    assert.ok(found, `no \`\`\`rust block with hidden lines ${block.shows ? `captioned ${block.shows}` : `in #${block.section}`}`);
                    const pre = page.locator(`pre[data-browser-test="${found.key}"]`);

                    // An empty clipboard first: a copy that does nothing must
                    // not pass with the previous block's program.
                    await page.evaluate(() => navigator.clipboard.writeText(''));
                    await pre.hover();
                    await pre.locator('button.clip-button').click();
                    let copied = '';
                    for (let i = 0; i < 50 && !copied; i++) {
                        copied = await page.evaluate(() => navigator.clipboard.readText());
                        if (!copied) await page.waitForTimeout(100);
                    }
                    const visible = await pre.locator('code').evaluate(code => code.innerText);
                    assert.ok(copied.length > visible.length,
                        `the copy (${copied.length} characters) is longer than the visible code (${visible.length}): hidden lines included`);
                    // Exactly the program the book's tests compile for this block.
                    const index = await page.evaluate(key => [...document.querySelectorAll('main pre > code.language-rust')]
                        .indexOf(document.querySelector(`pre[data-browser-test="${key}"] > code`)), found.key);
                    assert.equal(copied, programsOf(block.page)[index].replace(/\n$/, ''), 'the copy is the tested program');

                    const name = found.key.replace(/[^a-z0-9]+/g, '_');
                    const executable = await buildProgram(name, copied);

                    // A whole demo: its output is the book's listings/output/NAME.txt.
                    const example = found.files.map(f => /^listings\/examples\/(\w+)\.rs$/.exec(f)?.[1]).find(Boolean);
                    const want = example && recordedOutput(example);
                    if (example) {
                        assert.ok(want, `listings/output/${example}.txt records what ${example} prints`);
                        const got = await runProgram(executable);
                        assert.equal(normaliseDurations(got), normaliseDurations(want), `output of ${example} as listings/output/${example}.txt`);
                    }
                });
            }
        });

        test('5. no console errors on any page of the book', async () => {
            const facts = await visitEveryPage();
            const pages = ['index.html', ...EDITION_PAGES, ...PRINT_PAGES];
            assertNone(pages.flatMap(name => facts.get(name).errors.map(e => `${name}: ${e}`)), 'console errors');
        });

        for (const start of ['ja/ch02-wakers-and-timer.html', 'zh/ch02-wakers-and-timer.html']) {
            const edition = editionOf(start);
            test(`6. the interface of ${start} is in ${edition === 'ja' ? 'Japanese' : 'Chinese'}`, () => withContext(async context => {
                const { page } = await openPage(context, url(start));
                const strings = await page.evaluate(interfaceStrings);
                const problems = [];
                for (const [where, value] of strings) {
                    if (value === null || value === '') {
                        problems.push(`${where}: missing`);
                    } else if (PROPER_NAMES.has(value)) {
                        continue;
                    } else if (MDBOOK_ENGLISH.has(value)) {
                        problems.push(`${where}: mdBook's English ${JSON.stringify(value)}`);
                    } else if (!SCRIPT[edition].test(value)) {
                        problems.push(`${where}: ${JSON.stringify(value)} has no ${edition === 'ja' ? 'Japanese' : 'Chinese'} characters`);
                    }
                }
                // And nothing anywhere on the page still carries one of mdBook's
                // English strings as a title, label or placeholder.
                for (const [where, value] of await page.evaluate(allInterfaceAttributes)) {
                    if (MDBOOK_ENGLISH.has(value) && !PROPER_NAMES.has(value)) {
                        problems.push(`${where}: mdBook's English ${JSON.stringify(value)}`);
                    }
                }
                assertNone(problems, 'interface strings not in the edition\'s language');
            }));
        }

        test('7. the sidebar and chapter navigation stay in the reader\'s edition', async () => {
            const facts = await visitEveryPage();
            const problems = [];
            for (const name of EDITION_PAGES) {
                const f = facts.get(name);
                if (f.sidebarLinks === 0) problems.push(`${name}: no sidebar links at all`);
                for (const href of f.otherEditionLinks) problems.push(`${name}: visible sidebar link to ${href}`);
                for (const text of f.partTitles) problems.push(`${name}: part title "${text}" is visible`);
                for (const link of f.crossingNavigation) problems.push(`${name}: ${link}`);
            }
            assertNone(problems, 'the other edition shows through');
        });

        for (const edition of Object.keys(EDITIONS)) {
            test(`8. the diagrams of ${edition}/ch02–ch09 are drawn`, () => withContext(async context => {
                const problems = [];
                for (const file of ['ch02-wakers-and-timer.html', 'ch03-executor.html', 'ch04-state-machine.html',
                    'ch05-waker-by-hand.html', 'ch06-block-on.html', 'ch07-reactor.html',
                    'ch08-epoll-reactor.html', 'ch09-mini-runtime.html']) {
                    const name = `${edition}/${file}`;
                    const { page } = await openPage(context, url(name));
                    await diagramsDone(page).catch(err => problems.push(`${name}: ${err.message}`));
                    const diagrams = await page.$$eval('pre.mermaid', pres => pres.map(pre => ({
                        svg: Boolean(pre.querySelector('svg')),
                        error: /Syntax error/i.test(pre.textContent),
                    })));
                    if (diagrams.length === 0) problems.push(`${name}: no pre.mermaid`);
                    diagrams.forEach((d, i) => {
                        if (!d.svg) problems.push(`${name}: diagram ${i + 1} has no <svg>`);
                        if (d.error) problems.push(`${name}: diagram ${i + 1} shows a mermaid syntax error`);
                    });
                    if (await page.evaluate(() => /Syntax error in/i.test(document.body.innerText))) {
                        problems.push(`${name}: mermaid's "Syntax error" is on the page`);
                    }
                    if (file.startsWith('ch03') && diagrams.length) {
                        // The whole diagram, taller than the window: without
                        // the sticky menu bar, which would be drawn across it.
                        await shot(page.locator('pre.mermaid').first(), `${edition}-ch03-diagram`,
                            { style: '#mdbook-menu-bar { visibility: hidden; }' });
                    }
                    await page.close();
                }
                assertNone(problems, 'diagrams not drawn');
            }));

            test(`9. the charts of ${edition}/ch10 load`, () => withContext(async context => {
                const name = `${edition}/ch10-measuring.html`;
                const { page } = await openPage(context, url(name));
                const charts = await page.$$eval('main img[src*="charts/"]', imgs => Promise.all(imgs.map(img =>
                    (img.complete ? Promise.resolve() : new Promise(done => { img.onload = img.onerror = done; }))
                        .then(() => ({ src: img.getAttribute('src'), width: img.naturalWidth })))));
                const problems = charts.filter(c => c.width === 0).map(c => `${name}: ${c.src} did not load`);
                if (charts.length < 12) problems.push(`${name}: ${charts.length} charts, expected 12 or more`);
                if (charts.length) await shot(page.locator('main img[src*="charts/"]').first(), `${edition}-ch10-chart`);
                await page.close();
                assertNone(problems, 'charts not shown');
            }));
        }
    });
}

// --- Functions evaluated in the page --------------------------------------

// Test 7's facts about one edition page: visible sidebar links into the other
// edition (`other` is its folder's path), visible part titles, and prev/next
// links (present at all, visible or not: book.js's arrow keys follow them)
// into the other edition.
function readNavigation({ other, partTitles }) {
    const visible = el => el.checkVisibility({ visibilityProperty: true });
    const intoOther = a => new URL(a.href).pathname.startsWith(other);
    const sidebarLinks = [...document.querySelectorAll('#mdbook-sidebar a[href]')].filter(visible);
    return {
        sidebarLinks: sidebarLinks.length,
        otherEditionLinks: sidebarLinks.filter(intoOther).map(a => new URL(a.href).pathname),
        partTitles: [...document.querySelectorAll('#mdbook-sidebar *')]
            .filter(el => partTitles.includes(el.textContent.trim()) && visible(el))
            .map(el => el.textContent.trim()),
        crossingNavigation: [...document.querySelectorAll('a[rel~="prev"], a[rel~="next"]')]
            .filter(intoOther)
            .map(a => `${a.rel} link (${a.className}) to ${new URL(a.href).pathname}`),
    };
}

// Test 6: the interface strings the contract names, as [where, value] pairs.
function interfaceStrings() {
    const out = [];
    const attrs = (selector, names, label = selector) => {
        const els = document.querySelectorAll(selector);
        if (els.length === 0) out.push([label, null]);
        els.forEach((el, i) => {
            for (const name of names) {
                out.push([`${label}${els.length > 1 ? `[${i}]` : ''} ${name}`, el.getAttribute(name)]);
            }
        });
    };
    attrs('#mdbook-sidebar-toggle', ['title', 'aria-label']);
    attrs('#mdbook-theme-toggle', ['title', 'aria-label']);
    attrs('#mdbook-search-toggle', ['title', 'aria-label']);
    // The edition's print page (print-ja.html, print-zh.html: the book's renderer).
    attrs('#mdbook-menu-bar a[href$="print-ja.html"], #mdbook-menu-bar a[href$="print-zh.html"]', ['title', 'aria-label'], 'print link');
    attrs('a[rel~="prev"]', ['title', 'aria-label'], 'previous-chapter link');
    attrs('a[rel~="next"]', ['title', 'aria-label'], 'next-chapter link');
    attrs('#mdbook-searchbar', ['placeholder']);
    attrs('main pre button.clip-button', ['title']);
    for (const button of document.querySelectorAll('#mdbook-theme-list button')) {
        out.push([`theme button #${button.id}`, button.textContent.trim()]);
    }
    return out;
}

// Test 6: every title, aria-label and placeholder on the page.
function allInterfaceAttributes() {
    const out = [];
    for (const el of document.querySelectorAll('[title], [aria-label], [placeholder]')) {
        for (const name of ['title', 'aria-label', 'placeholder']) {
            if (el.hasAttribute(name)) {
                out.push([`${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''} ${name}`, el.getAttribute(name)]);
            }
        }
    }
    return out;
}

// Test 4: finds the first ```rust block with hidden lines (not compile_fail)
// that is captioned with `shows` (p.listing-source right before the <pre>,
// its links' text being the listing files) or that follows heading `section`
// within its section; tags it data-browser-test=KEY and returns
// { key, files: the listing files it shows }, or null.
function markBlock({ page, shows, section }) {
    const candidates = [...document.querySelectorAll('main pre')].filter(pre => {
        const code = pre.querySelector(':scope > code.language-rust');
        return code && !code.classList.contains('compile_fail') && code.querySelector('.boring');
    });
    const heading = el => /^H[1-6]$/.test(el.tagName);
    for (const pre of candidates) {
        let files = null;
        if (shows) {
            const caption = pre.previousElementSibling;
            if (caption?.matches('p.listing-source')) {
                files = [...caption.querySelectorAll('a code')].map(c => c.textContent.trim());
                if (!files.includes(shows)) files = null;
            }
        } else {
            let el = pre.previousElementSibling;
            while (el && !heading(el)) el = el.previousElementSibling;
            if (el?.id === section) files = [el.textContent.trim()];
        }
        if (files) {
            const key = `${page.replace(/\.html$/, '')}-${(shows ?? section).replace(/^listings\//, '')}`.toLowerCase();
            pre.dataset.browserTest = key;
            return { key, files };
        }
    }
    return null;
}
