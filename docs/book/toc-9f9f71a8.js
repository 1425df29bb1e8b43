// Populate the sidebar
//
// This is a script, and not included directly in the page, to control the total size of the book.
// The TOC contains an entry for each page, so if each page includes a copy of the TOC,
// the total size of the page becomes O(n**2).
class MDBookSidebarScrollbox extends HTMLElement {
    constructor() {
        super();
    }
    connectedCallback() {
        this.innerHTML = '<ol class="chapter"><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="introduction.html">Introduction</a></span></li><li class="chapter-item expanded "><li class="part-title">Using pgomea</li></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="getting-started.html"><strong aria-hidden="true">1.</strong> Getting started</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="cli/index.html"><strong aria-hidden="true">2.</strong> The command line by task</a></span><ol class="section"><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="cli/solve-a-file.html"><strong aria-hidden="true">2.1.</strong> Solve a file</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="cli/targets-and-limits.html"><strong aria-hidden="true">2.2.</strong> Targets, limits and stops</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="cli/traces-and-figures.html"><strong aria-hidden="true">2.3.</strong> Traces and figures</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="cli/backends.html"><strong aria-hidden="true">2.4.</strong> Backends: GPU and CPU</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="cli/experiments.html"><strong aria-hidden="true">2.5.</strong> The paper&#39;s experiments and SLURM shards</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="cli/options.html"><strong aria-hidden="true">2.6.</strong> Every run option</a></span></li></ol><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="python/index.html"><strong aria-hidden="true">3.</strong> Python</a></span><ol class="section"><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="python/problems.html"><strong aria-hidden="true">3.1.</strong> Problems from arrays, graphs, clauses and tables</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="python/graybox.html"><strong aria-hidden="true">3.2.</strong> GrayBox for gomea users</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="python/dimod.html"><strong aria-hidden="true">3.3.</strong> The dimod sampler</a></span></li></ol><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="rust.html"><strong aria-hidden="true">4.</strong> The Rust library</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="formats.html"><strong aria-hidden="true">5.</strong> Problems and file formats</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="guarantees.html"><strong aria-hidden="true">6.</strong> Guarantees: answers, exit codes, signals, limits</a></span></li><li class="chapter-item expanded "><li class="part-title">How it works</li></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="how-it-works/algorithms.html"><strong aria-hidden="true">7.</strong> The paper&#39;s algorithms</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="how-it-works/colouring.html"><strong aria-hidden="true">8.</strong> Linkage models and the colouring</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="how-it-works/stages.html"><strong aria-hidden="true">9.</strong> The six stages of a colour group</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="how-it-works/hybrid.html"><strong aria-hidden="true">10.</strong> Hybrid parallel GOMEA</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="how-it-works/defaults.html"><strong aria-hidden="true">11.</strong> Defaults and why</a></span></li><li class="chapter-item expanded "><li class="part-title">Writing Rust-native CUDA kernels</li></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="kernels/one-stage.html"><strong aria-hidden="true">12.</strong> One stage from Rust to PTX and back</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="kernels/own-operator.html"><strong aria-hidden="true">13.</strong> Adding your own operator</a></span></li><li class="chapter-item expanded "><li class="part-title">Reference</li></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="benchmarks/index.html"><strong aria-hidden="true">14.</strong> Benchmarks</a></span><ol class="section"><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="benchmarks/quality.html"><strong aria-hidden="true">14.1.</strong> Quality against the peers</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="benchmarks/scale.html"><strong aria-hidden="true">14.2.</strong> Tori, set-up and memory at scale</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="benchmarks/gpu.html"><strong aria-hidden="true">14.3.</strong> A generation on the GPU, and the speed-up</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="benchmarks/gom.html"><strong aria-hidden="true">14.4.</strong> What GOM adds over annealing alone</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="benchmarks/gomea.html"><strong aria-hidden="true">14.5.</strong> Against PyPI gomea, and the Python layer&#39;s cost</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="benchmarks/paper.html"><strong aria-hidden="true">14.6.</strong> The paper&#39;s experiments</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="benchmarks/floats.html"><strong aria-hidden="true">14.7.</strong> Float models against simulated annealing</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="benchmarks/cpu.html"><strong aria-hidden="true">14.8.</strong> Without a GPU: the CPU against SA</a></span></li></ol><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/index.html"><strong aria-hidden="true">15.</strong> Decision records</a></span><ol class="section"><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0001-hybrid-parallel-gomea-defaults.html"><strong aria-hidden="true">15.1.</strong> 0001. Hybrid parallel GOMEA: local search of new populations, no Forced Improvement</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0002-annealing-sweeps.html"><strong aria-hidden="true">15.2.</strong> 0002. Annealing sweeps: 3000 on the GPU, 1000 on the CPU</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0003-annealing-by-problem-kind.html"><strong aria-hidden="true">15.3.</strong> 0003. No annealing for clauses and for mostly deceptive tables</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0004-no-annealing-for-2d-spin-glasses.html"><strong aria-hidden="true">15.4.</strong> 0004. No annealing for 2D spin glasses with distinct couplings</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0005-annealing-sweeps-at-scale.html"><strong aria-hidden="true">15.5.</strong> 0005. Fewer annealing sweeps beyond 10^5 variables on the GPU</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0006-annealing-growth.html"><strong aria-hidden="true">15.6.</strong> 0006. Annealing that doubles with every population, for Max-Cut up to 10^5 variables</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0007-anneal-share.html"><strong aria-hidden="true">15.7.</strong> 0007. A new population&#39;s annealing takes at most 3/4 of the time left</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0008-annealing-pace.html"><strong aria-hidden="true">15.8.</strong> 0008. The annealing&#39;s pace: the last whole search&#39;s, refitted once at a search&#39;s own early sweeps</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0009-random-population-evaluated-in-parallel.html"><strong aria-hidden="true">15.9.</strong> 0009. A random population is evaluated in parallel, offered in order</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0010-bounded-tree-for-large-sparse-instances.html"><strong aria-hidden="true">15.10.</strong> 0010. The tree bounded to sets of 16 for large instances that are not lattices</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0011-univariate-model-for-clauses.html"><strong aria-hidden="true">15.11.</strong> 0011. The univariate model for clauses</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0012-default-colouring.html"><strong aria-hidden="true">15.12.</strong> 0012. The colouring: Welsh-Powell up to 50,000 variables, incidence beyond, in parallel batches</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0013-layout-dependent-lists.html"><strong aria-hidden="true">15.13.</strong> 0013. The layout&#39;s dependent lists: no read of a subfunction&#39;s variables, lists kept for clauses and tables</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0014-linkage-tree-build.html"><strong aria-hidden="true">15.14.</strong> 0014. The linkage tree&#39;s rounds: written back in parallel, touched clusters relisted in their own buffers</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0015-partition-mixing-default.html"><strong aria-hidden="true">15.15.</strong> 0015. Partition mixing into the elitist: on below 10^5 variables but for clauses, beyond only on lattices of pairwise terms</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0016-partition-mixing-donors-and-pieces.html"><strong aria-hidden="true">15.16.</strong> 0016. Partition mixing: one donor at a time into the elitist, kept bests and displaced elitists mixed again, components cut into pieces, mixes beside the generations</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0017-elitist-restarts-off.html"><strong aria-hidden="true">15.17.</strong> 0017. Restarts from the elitist: an option, off by default</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0018-new-populations-not-aligned-to-the-elitist.html"><strong aria-hidden="true">15.18.</strong> 0018. New populations are not aligned to the elitist&#39;s phase (tried, not kept)</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0019-g-set-graphs-short-of-the-best-known.html"><strong aria-hidden="true">15.19.</strong> 0019. What did not take G23, G35 and G63 to their best-known cuts (tried, not kept)</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0020-whole-generations-by-solution.html"><strong aria-hidden="true">15.20.</strong> 0020. A block per solution, without grid barriers, where its rule says so</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0021-gom-in-one-pass.html"><strong aria-hidden="true">15.21.</strong> 0021. GOM in one pass per colour group where groups hold at least 256 linkage sets</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0022-crew-placement-and-teams.html"><strong aria-hidden="true">15.22.</strong> 0022. Where a pass&#39;s crews run: three starts, spread over a team&#39;s blocks, teams of blocks per solution</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0023-crew-kinds-and-sizes.html"><strong aria-hidden="true">15.23.</strong> 0023. Crew kinds and sizes: a lane up to 8 variables, walking a gathered set; a block beyond 256 variables or 1024 subfunctions</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0024-register-budget.html"><strong aria-hidden="true">15.24.</strong> 0024. A register budget of 64 for GOM&#39;s whole-generation kernels on sm_90</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0025-a-barrier-per-colour-group.html"><strong aria-hidden="true">15.25.</strong> 0025. Colour groups keep a barrier each; no dataflow schedule</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0026-kernels-loaded-when-first-needed.html"><strong aria-hidden="true">15.26.</strong> 0026. Kernels compiled one by one when first needed; a stop waits for the GPU&#39;s opening</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0027-local-search-entries.html"><strong aria-hidden="true">15.27.</strong> 0027. Local search&#39;s entries: partners for pairwise terms, sliced for warps, by degree, built once</a></span></li><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="decisions/0028-algorithm-default.html"><strong aria-hidden="true">15.28.</strong> 0028. The algorithm by default</a></span></li></ol><li class="chapter-item expanded "><span class="chapter-link-wrapper"><a href="contributing.html"><strong aria-hidden="true">16.</strong> Contributing</a></span></li></ol>';
        // Set the current, active page, and reveal it if it's hidden
        let current_page = document.location.href.toString().split('#')[0].split('?')[0];
        if (current_page.endsWith('/')) {
            current_page += 'index.html';
        }
        const links = Array.prototype.slice.call(this.querySelectorAll('a'));
        const l = links.length;
        for (let i = 0; i < l; ++i) {
            const link = links[i];
            const href = link.getAttribute('href');
            if (href && !href.startsWith('#') && !/^(?:[a-z+]+:)?\/\//.test(href)) {
                link.href = path_to_root + href;
            }
            // The 'index' page is supposed to alias the first chapter in the book.
            // Check both with and without the '.html' suffix to be robust against pretty URLs
            if (link.href.replace(/\.html$/, '') === current_page.replace(/\.html$/, '')
                || i === 0
                && path_to_root === ''
                && current_page.endsWith('/index.html')) {
                link.classList.add('active');
                let parent = link.parentElement;
                while (parent) {
                    if (parent.tagName === 'LI' && parent.classList.contains('chapter-item')) {
                        parent.classList.add('expanded');
                    }
                    parent = parent.parentElement;
                }
            }
        }
        // Track and set sidebar scroll position
        this.addEventListener('click', e => {
            if (e.target.tagName === 'A') {
                const clientRect = e.target.getBoundingClientRect();
                const sidebarRect = this.getBoundingClientRect();
                sessionStorage.setItem('sidebar-scroll-offset', clientRect.top - sidebarRect.top);
            }
        }, { passive: true });
        const sidebarScrollOffset = sessionStorage.getItem('sidebar-scroll-offset');
        sessionStorage.removeItem('sidebar-scroll-offset');
        if (sidebarScrollOffset !== null) {
            // preserve sidebar scroll position when navigating via links within sidebar
            const activeSection = this.querySelector('.active');
            if (activeSection) {
                const clientRect = activeSection.getBoundingClientRect();
                const sidebarRect = this.getBoundingClientRect();
                const currentOffset = clientRect.top - sidebarRect.top;
                this.scrollTop += currentOffset - parseFloat(sidebarScrollOffset);
            }
        } else {
            // scroll sidebar to current active section when navigating via
            // 'next/previous chapter' buttons
            const activeSection = document.querySelector('#mdbook-sidebar .active');
            if (activeSection) {
                activeSection.scrollIntoView({ block: 'center' });
            }
        }
        // Toggle buttons
        const sidebarAnchorToggles = document.querySelectorAll('.chapter-fold-toggle');
        function toggleSection(ev) {
            ev.currentTarget.parentElement.parentElement.classList.toggle('expanded');
        }
        Array.from(sidebarAnchorToggles).forEach(el => {
            el.addEventListener('click', toggleSection);
        });
    }
}
window.customElements.define('mdbook-sidebar-scrollbox', MDBookSidebarScrollbox);


// ---------------------------------------------------------------------------
// Support for dynamically adding headers to the sidebar.

(function() {
    // This is used to detect which direction the page has scrolled since the
    // last scroll event.
    let lastKnownScrollPosition = 0;
    // This is the threshold in px from the top of the screen where it will
    // consider a header the "current" header when scrolling down.
    const defaultDownThreshold = 150;
    // Same as defaultDownThreshold, except when scrolling up.
    const defaultUpThreshold = 300;
    // The threshold is a virtual horizontal line on the screen where it
    // considers the "current" header to be above the line. The threshold is
    // modified dynamically to handle headers that are near the bottom of the
    // screen, and to slightly offset the behavior when scrolling up vs down.
    let threshold = defaultDownThreshold;
    // This is used to disable updates while scrolling. This is needed when
    // clicking the header in the sidebar, which triggers a scroll event. It
    // is somewhat finicky to detect when the scroll has finished, so this
    // uses a relatively dumb system of disabling scroll updates for a short
    // time after the click.
    let disableScroll = false;
    // Array of header elements on the page.
    let headers;
    // Array of li elements that are initially collapsed headers in the sidebar.
    // I'm not sure why eslint seems to have a false positive here.
    // eslint-disable-next-line prefer-const
    let headerToggles = [];
    // This is a debugging tool for the threshold which you can enable in the console.
    let thresholdDebug = false;

    // Updates the threshold based on the scroll position.
    function updateThreshold() {
        const scrollTop = window.pageYOffset || document.documentElement.scrollTop;
        const windowHeight = window.innerHeight;
        const documentHeight = document.documentElement.scrollHeight;

        // The number of pixels below the viewport, at most documentHeight.
        // This is used to push the threshold down to the bottom of the page
        // as the user scrolls towards the bottom.
        const pixelsBelow = Math.max(0, documentHeight - (scrollTop + windowHeight));
        // The number of pixels above the viewport, at least defaultDownThreshold.
        // Similar to pixelsBelow, this is used to push the threshold back towards
        // the top when reaching the top of the page.
        const pixelsAbove = Math.max(0, defaultDownThreshold - scrollTop);
        // How much the threshold should be offset once it gets close to the
        // bottom of the page.
        const bottomAdd = Math.max(0, windowHeight - pixelsBelow - defaultDownThreshold);
        let adjustedBottomAdd = bottomAdd;

        // Adjusts bottomAdd for a small document. The calculation above
        // assumes the document is at least twice the windowheight in size. If
        // it is less than that, then bottomAdd needs to be shrunk
        // proportional to the difference in size.
        if (documentHeight < windowHeight * 2) {
            const maxPixelsBelow = documentHeight - windowHeight;
            const t = 1 - pixelsBelow / Math.max(1, maxPixelsBelow);
            const clamp = Math.max(0, Math.min(1, t));
            adjustedBottomAdd *= clamp;
        }

        let scrollingDown = true;
        if (scrollTop < lastKnownScrollPosition) {
            scrollingDown = false;
        }

        if (scrollingDown) {
            // When scrolling down, move the threshold up towards the default
            // downwards threshold position. If near the bottom of the page,
            // adjustedBottomAdd will offset the threshold towards the bottom
            // of the page.
            const amountScrolledDown = scrollTop - lastKnownScrollPosition;
            const adjustedDefault = defaultDownThreshold + adjustedBottomAdd;
            threshold = Math.max(adjustedDefault, threshold - amountScrolledDown);
        } else {
            // When scrolling up, move the threshold down towards the default
            // upwards threshold position. If near the bottom of the page,
            // quickly transition the threshold back up where it normally
            // belongs.
            const amountScrolledUp = lastKnownScrollPosition - scrollTop;
            const adjustedDefault = defaultUpThreshold - pixelsAbove
                + Math.max(0, adjustedBottomAdd - defaultDownThreshold);
            threshold = Math.min(adjustedDefault, threshold + amountScrolledUp);
        }

        if (documentHeight <= windowHeight) {
            threshold = 0;
        }

        if (thresholdDebug) {
            const id = 'mdbook-threshold-debug-data';
            let data = document.getElementById(id);
            if (data === null) {
                data = document.createElement('div');
                data.id = id;
                data.style.cssText = `
                    position: fixed;
                    top: 50px;
                    right: 10px;
                    background-color: 0xeeeeee;
                    z-index: 9999;
                    pointer-events: none;
                `;
                document.body.appendChild(data);
            }
            data.innerHTML = `
                <table>
                  <tr><td>documentHeight</td><td>${documentHeight.toFixed(1)}</td></tr>
                  <tr><td>windowHeight</td><td>${windowHeight.toFixed(1)}</td></tr>
                  <tr><td>scrollTop</td><td>${scrollTop.toFixed(1)}</td></tr>
                  <tr><td>pixelsAbove</td><td>${pixelsAbove.toFixed(1)}</td></tr>
                  <tr><td>pixelsBelow</td><td>${pixelsBelow.toFixed(1)}</td></tr>
                  <tr><td>bottomAdd</td><td>${bottomAdd.toFixed(1)}</td></tr>
                  <tr><td>adjustedBottomAdd</td><td>${adjustedBottomAdd.toFixed(1)}</td></tr>
                  <tr><td>scrollingDown</td><td>${scrollingDown}</td></tr>
                  <tr><td>threshold</td><td>${threshold.toFixed(1)}</td></tr>
                </table>
            `;
            drawDebugLine();
        }

        lastKnownScrollPosition = scrollTop;
    }

    function drawDebugLine() {
        if (!document.body) {
            return;
        }
        const id = 'mdbook-threshold-debug-line';
        const existingLine = document.getElementById(id);
        if (existingLine) {
            existingLine.remove();
        }
        const line = document.createElement('div');
        line.id = id;
        line.style.cssText = `
            position: fixed;
            top: ${threshold}px;
            left: 0;
            width: 100vw;
            height: 2px;
            background-color: red;
            z-index: 9999;
            pointer-events: none;
        `;
        document.body.appendChild(line);
    }

    function mdbookEnableThresholdDebug() {
        thresholdDebug = true;
        updateThreshold();
        drawDebugLine();
    }

    window.mdbookEnableThresholdDebug = mdbookEnableThresholdDebug;

    // Updates which headers in the sidebar should be expanded. If the current
    // header is inside a collapsed group, then it, and all its parents should
    // be expanded.
    function updateHeaderExpanded(currentA) {
        // Add expanded to all header-item li ancestors.
        let current = currentA.parentElement;
        while (current) {
            if (current.tagName === 'LI' && current.classList.contains('header-item')) {
                current.classList.add('expanded');
            }
            current = current.parentElement;
        }
    }

    // Updates which header is marked as the "current" header in the sidebar.
    // This is done with a virtual Y threshold, where headers at or below
    // that line will be considered the current one.
    function updateCurrentHeader() {
        if (!headers || !headers.length) {
            return;
        }

        // Reset the classes, which will be rebuilt below.
        const els = document.getElementsByClassName('current-header');
        for (const el of els) {
            el.classList.remove('current-header');
        }
        for (const toggle of headerToggles) {
            toggle.classList.remove('expanded');
        }

        // Find the last header that is above the threshold.
        let lastHeader = null;
        for (const header of headers) {
            const rect = header.getBoundingClientRect();
            if (rect.top <= threshold) {
                lastHeader = header;
            } else {
                break;
            }
        }
        if (lastHeader === null) {
            lastHeader = headers[0];
            const rect = lastHeader.getBoundingClientRect();
            const windowHeight = window.innerHeight;
            if (rect.top >= windowHeight) {
                return;
            }
        }

        // Get the anchor in the summary.
        const href = '#' + lastHeader.id;
        const a = [...document.querySelectorAll('.header-in-summary')]
            .find(element => element.getAttribute('href') === href);
        if (!a) {
            return;
        }

        a.classList.add('current-header');

        updateHeaderExpanded(a);
    }

    // Updates which header is "current" based on the threshold line.
    function reloadCurrentHeader() {
        if (disableScroll) {
            return;
        }
        updateThreshold();
        updateCurrentHeader();
    }


    // When clicking on a header in the sidebar, this adjusts the threshold so
    // that it is located next to the header. This is so that header becomes
    // "current".
    function headerThresholdClick(event) {
        // See disableScroll description why this is done.
        disableScroll = true;
        setTimeout(() => {
            disableScroll = false;
        }, 100);
        // requestAnimationFrame is used to delay the update of the "current"
        // header until after the scroll is done, and the header is in the new
        // position.
        requestAnimationFrame(() => {
            requestAnimationFrame(() => {
                // Closest is needed because if it has child elements like <code>.
                const a = event.target.closest('a');
                const href = a.getAttribute('href');
                const targetId = href.substring(1);
                const targetElement = document.getElementById(targetId);
                if (targetElement) {
                    threshold = targetElement.getBoundingClientRect().bottom;
                    updateCurrentHeader();
                }
            });
        });
    }

    // Takes the nodes from the given head and copies them over to the
    // destination, along with some filtering.
    function filterHeader(source, dest) {
        const clone = source.cloneNode(true);
        clone.querySelectorAll('mark').forEach(mark => {
            mark.replaceWith(...mark.childNodes);
        });
        dest.append(...clone.childNodes);
    }

    // Scans page for headers and adds them to the sidebar.
    document.addEventListener('DOMContentLoaded', function() {
        const activeSection = document.querySelector('#mdbook-sidebar .active');
        if (activeSection === null) {
            return;
        }

        const main = document.getElementsByTagName('main')[0];
        headers = Array.from(main.querySelectorAll('h2, h3, h4, h5, h6'))
            .filter(h => h.id !== '' && h.children.length && h.children[0].tagName === 'A');

        if (headers.length === 0) {
            return;
        }

        // Build a tree of headers in the sidebar.

        const stack = [];

        const firstLevel = parseInt(headers[0].tagName.charAt(1));
        for (let i = 1; i < firstLevel; i++) {
            const ol = document.createElement('ol');
            ol.classList.add('section');
            if (stack.length > 0) {
                stack[stack.length - 1].ol.appendChild(ol);
            }
            stack.push({level: i + 1, ol: ol});
        }

        // The level where it will start folding deeply nested headers.
        const foldLevel = 3;

        for (let i = 0; i < headers.length; i++) {
            const header = headers[i];
            const level = parseInt(header.tagName.charAt(1));

            const currentLevel = stack[stack.length - 1].level;
            if (level > currentLevel) {
                // Begin nesting to this level.
                for (let nextLevel = currentLevel + 1; nextLevel <= level; nextLevel++) {
                    const ol = document.createElement('ol');
                    ol.classList.add('section');
                    const last = stack[stack.length - 1];
                    const lastChild = last.ol.lastChild;
                    // Handle the case where jumping more than one nesting
                    // level, which doesn't have a list item to place this new
                    // list inside of.
                    if (lastChild) {
                        lastChild.appendChild(ol);
                    } else {
                        last.ol.appendChild(ol);
                    }
                    stack.push({level: nextLevel, ol: ol});
                }
            } else if (level < currentLevel) {
                while (stack.length > 1 && stack[stack.length - 1].level > level) {
                    stack.pop();
                }
            }

            const li = document.createElement('li');
            li.classList.add('header-item');
            li.classList.add('expanded');
            if (level < foldLevel) {
                li.classList.add('expanded');
            }
            const span = document.createElement('span');
            span.classList.add('chapter-link-wrapper');
            const a = document.createElement('a');
            span.appendChild(a);
            a.href = '#' + header.id;
            a.classList.add('header-in-summary');
            filterHeader(header.children[0], a);
            a.addEventListener('click', headerThresholdClick);
            const nextHeader = headers[i + 1];
            if (nextHeader !== undefined) {
                const nextLevel = parseInt(nextHeader.tagName.charAt(1));
                if (nextLevel > level && level >= foldLevel) {
                    const toggle = document.createElement('a');
                    toggle.classList.add('chapter-fold-toggle');
                    toggle.classList.add('header-toggle');
                    toggle.addEventListener('click', () => {
                        li.classList.toggle('expanded');
                    });
                    const toggleDiv = document.createElement('div');
                    toggleDiv.textContent = '❱';
                    toggle.appendChild(toggleDiv);
                    span.appendChild(toggle);
                    headerToggles.push(li);
                }
            }
            li.appendChild(span);

            const currentParent = stack[stack.length - 1];
            currentParent.ol.appendChild(li);
        }

        const onThisPage = document.createElement('div');
        onThisPage.classList.add('on-this-page');
        onThisPage.append(stack[0].ol);
        const activeItemSpan = activeSection.parentElement;
        activeItemSpan.after(onThisPage);
    });

    document.addEventListener('DOMContentLoaded', reloadCurrentHeader);
    document.addEventListener('scroll', reloadCurrentHeader, { passive: true });
})();

