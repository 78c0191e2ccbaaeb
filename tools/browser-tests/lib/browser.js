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

// A browser context that reaches nothing but the servers under test, so that
// results do not depend on this machine's network. The one outside request
// the book makes is book.js asking the Rust Playground which crates it
// offers (`[output.html.playground] runnable`); it gets a stand-in answer.
// Anything else outside is refused, and shows up as a console error.
export async function newContext(browser, options = {}) {
    const context = await browser.newContext(options);
    await context.route(url => !isLocal(url), route => {
        if (route.request().url() === 'https://play.rust-lang.org/meta/crates') {
            return route.fulfill({
                status: 200,
                contentType: 'application/json',
                headers: { 'access-control-allow-origin': '*' },
                body: JSON.stringify({ crates: [] }),
            });
        }
        return route.abort('blockedbyclient');
    });
    return context;
}

function isLocal(url) {
    return ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

// Opens `url` in a new page of `context` and records what a reader's console
// would show as errors: console.error messages (including failed resource
// loads) and uncaught exceptions. Returns { page, errors } once the page has
// loaded; `errors` keeps filling while the page lives.
export async function openPage(context, url, { waitUntil = 'load' } = {}) {
    const page = await context.newPage();
    const errors = [];
    page.on('console', msg => {
        if (msg.type() === 'error') {
            const where = msg.location()?.url;
            errors.push(`console.error: ${msg.text()}${where ? ` (${where})` : ''}`);
        }
    });
    page.on('pageerror', err => errors.push(`uncaught: ${err.message}`));
    await page.goto(url, { waitUntil });
    return { page, errors };
}
