// Headless Debian Chromium through playwright-core, which downloads no
// browser of its own. chromium.launch() gives the browser a fresh temporary
// profile and deletes it on close; each test then opens its own context.
import { chromium } from 'playwright-core';

const ARGS = [
    '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic',
    '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync',
];

export function launchBrowser() {
    return chromium.launch({
        executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
        args: ARGS,
        // playwright-core adds --headless itself; ours is in ARGS.
        headless: false,
    });
}

// A browser context that reaches nothing but the servers under test (and the
// built book's files), so that results do not depend on this machine's
// network. The one outside request the book makes is book.js asking the Rust
// Playground which crates it offers (`[output.html.playground] runnable`).
// book.js races that fetch against a 6-second timer and leaves the loser's
// rejection unhandled, so it must be answered inside the page: answered
// through the network stack, the answer waits for this Node process, and on
// a loaded machine (print.html takes seconds to lay out) it can come after
// the timer, which the page reports as "uncaught: timeout". Anything else
// outside is refused, and shows up as a console error.
export async function newContext(browser, options = {}) {
    const context = await browser.newContext(options);
    await context.addInitScript(playgroundUrl => {
        const fetch = window.fetch;
        window.fetch = (input, init) => {
            const url = typeof input === 'string' ? input : input?.url;
            if (url === playgroundUrl) {
                return Promise.resolve(new Response(JSON.stringify({ crates: [] }), {
                    headers: { 'content-type': 'application/json' },
                }));
            }
            return fetch.call(window, input, init);
        };
    }, PLAYGROUND_CRATES);
    await context.route(url => !isLocal(url), route => route.abort('blockedbyclient'));
    return context;
}

const PLAYGROUND_CRATES = 'https://play.rust-lang.org/meta/crates';

function isLocal(url) {
    return url.protocol === 'file:' || ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

// Opens `url` in a new page of `context` and records what a reader's console
// would show as errors: console.error messages (including failed resource
// loads) and uncaught exceptions. Returns { page, errors } once the page has
// loaded; `errors` keeps filling while the page lives.
export async function openPage(context, url, { waitUntil = 'load', timeout = 30_000 } = {}) {
    const page = await context.newPage();
    const errors = [];
    page.on('console', msg => {
        if (msg.type() === 'error') {
            const where = msg.location()?.url;
            errors.push(`console.error: ${msg.text()}${where ? ` (${where})` : ''}`);
        }
    });
    page.on('pageerror', err => errors.push(`uncaught: ${err.message}`));
    await page.goto(url, { waitUntil, timeout });
    return { page, errors };
}
