// Prints each edition's print page to a PDF in headless Chromium.
// Usage: node pdf.mjs <built HTML book> <output folder>
// The browser tests' helpers: Debian's Chromium through their pinned
// playwright-core, contexts that reach only the book, a static server.
import path from 'node:path';
import { launchBrowser, newContext } from '../browser-tests/lib/browser.js';
import { serveStatic } from '../browser-tests/lib/static-server.js';

const [html, out] = process.argv.slice(2);
// Each edition's language, and the CJK font its text must be drawn with.
// Chromium embeds CFF-outline fonts such as Noto Sans CJK as Type 3 glyph
// sets, which carry no font name in the PDF, so the font is checked here,
// on the page being printed, and tools/pdf/check checks that every font in
// the PDF is embedded and that its text reads back.
const EDITIONS = {
    ja: { lang: 'ja', font: 'Noto Sans CJK JP' },
    zh: { lang: 'zh-CN', font: 'Noto Sans CJK SC' },
};

// The fonts Chromium drew the page's first paragraphs with (DevTools
// protocol), as "family: glyphs" strings.
async function fontsOfText(page) {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('DOM.enable');
    await cdp.send('CSS.enable');
    const { root } = await cdp.send('DOM.getDocument');
    const { nodeIds } = await cdp.send('DOM.querySelectorAll', { nodeId: root.nodeId, selector: 'main > p' });
    const glyphs = new Map();
    for (const nodeId of nodeIds.slice(0, 20)) {
        const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
        for (const { familyName, glyphCount } of fonts) {
            glyphs.set(familyName, (glyphs.get(familyName) ?? 0) + glyphCount);
        }
    }
    await cdp.detach();
    return glyphs;
}

const server = await serveStatic(path.resolve(html));
const browser = await launchBrowser();
try {
    for (const [edition, { lang, font }] of Object.entries(EDITIONS)) {
        const context = await newContext(browser);
        // The print page opens the print dialog when ready; here the PDF is
        // made by page.pdf() instead.
        await context.addInitScript(() => {
            window.print = () => {};
        });
        const page = await context.newPage();
        const errors = [];
        page.on('pageerror', err => errors.push(err.message));
        // Diagrams or code that failed to load say so with console.error.
        page.on('console', msg => msg.type() === 'error' && errors.push(msg.text()));
        await page.goto(new URL(`print-${edition}.html`, server.url).href, { waitUntil: 'load', timeout: 120_000 });
        const pageLang = await page.evaluate(() => document.documentElement.lang);
        if (pageLang !== lang) {
            throw new Error(`print-${edition}.html has lang="${pageLang}", not "${lang}"`);
        }
        // Diagrams drawn (theme/diagrams.js's promise: mermaid.js loads after
        // `load`), images and fonts in.
        await page.evaluate(() => Promise.all([window.asyncbookDiagrams, document.fonts.ready]));
        await page.waitForFunction(() => [...document.images].every(img => img.complete && img.naturalWidth > 0),
            null, { timeout: 120_000, polling: 200 });
        const undrawn = await page.evaluate(() => [...document.querySelectorAll('pre.mermaid')]
            .filter(pre => !pre.querySelector('svg') || /Syntax error/i.test(pre.textContent)).length);
        if (undrawn) {
            throw new Error(`print-${edition}.html: ${undrawn} diagrams not drawn`);
        }
        if (errors.length) {
            throw new Error(`print-${edition}.html: ${errors.join('; ')}`);
        }
        const fonts = await fontsOfText(page);
        if (!(fonts.get(font) > 0)) {
            throw new Error(`print-${edition}.html: its text is not drawn with ${font} (${[...fonts].map(([f, n]) => `${f}: ${n}`).join(', ')})`);
        }
        const file = path.join(out, `${edition}.pdf`);
        await page.pdf({
            path: file,
            format: 'A4',
            margin: { top: '18mm', bottom: '18mm', left: '16mm', right: '16mm' },
            printBackground: true,
            displayHeaderFooter: true,
            headerTemplate: '<span></span>',
            footerTemplate: '<div style="width: 100%; font-size: 9px; text-align: center;">'
                + '<span class="pageNumber"></span> / <span class="totalPages"></span></div>',
            outline: true,
            tagged: true,
        });
        console.log(`wrote ${file}`);
        await context.close();
    }
} finally {
    await browser.close();
    server.close();
}
