/// The dashboard's HTML shell; `DashboardScript` fills it in. No network fetches beyond
/// pushmock's own API: it works offline.
enum DashboardPage {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>pushmock</title>
        <link rel="icon" href="data:,">
        <link rel="stylesheet" href="/ui/app.css">
        </head>
        <body>
        <header>
          <h1>pushmock</h1>
          <nav aria-label="Views">
            <button class="tab" data-view="messages" accesskey="m">Messages</button>
            <button class="tab" data-view="reports" accesskey="r">Reports</button>
            <button class="tab" data-view="devices" accesskey="d">Devices</button>
            <button class="tab" data-view="topics" accesskey="t">Topics</button>
          </nav>
          <label class="project">Project <input id="project" value="demo-pushmock" size="18"></label>
          <span id="live" class="live off" role="status">offline</span>
        </header>
        <main>
          <section id="view-messages" class="view">
            <form id="message-filters" class="filters" aria-label="Message filters">
              <input name="q" type="search" placeholder="Search text or id" aria-label="Search">
              <input name="token" placeholder="Token" aria-label="Token">
              <input name="topic" placeholder="Topic" aria-label="Topic">
              <input name="label" placeholder="Analytics label" aria-label="Analytics label">
              <select name="event" aria-label="Event"><option value="">Any event</option></select>
            </form>
            <div class="split">
              <table id="messages" class="list" aria-label="Messages">
                <thead><tr><th>Received</th><th>API</th><th>Target</th><th>Content</th><th>Outcome</th></tr></thead>
                <tbody></tbody>
              </table>
              <article id="message" class="detail" aria-live="polite"><p class="hint">Select a message.</p></article>
            </div>
          </section>
          <section id="view-reports" class="view" hidden>
            <form id="report-filters" class="filters" aria-label="Report filters">
              <label>From <input name="from" type="date"></label>
              <label>To <input name="to" type="date"></label>
              <select name="platform" aria-label="Platform"><option value="">All platforms</option><option value="ios">iOS</option><option value="android">Android</option><option value="web">Web</option></select>
              <input name="app" placeholder="App" aria-label="App">
              <input name="analytics_label" placeholder="Analytics label" aria-label="Analytics label">
              <a id="csv" class="button" href="#">Export CSV</a>
            </form>
            <div id="metrics" class="cards"></div>
            <div class="charts"><figure><figcaption>Per day</figcaption><svg id="chart-days" role="img" aria-label="Metrics per day"></svg></figure>
              <figure><figcaption>Dropped, by reason</figcaption><svg id="chart-drops" role="img" aria-label="Dropped by reason"></svg></figure></div>
            <table id="report-days" class="list" aria-label="Report per day"></table>
            <section id="legacy-calls" hidden>
              <h3>Legacy API calls refused (--legacy-api shutdown)</h3>
              <table class="list" aria-label="Legacy API calls"><thead><tr><th>Time</th><th>Call</th></tr></thead><tbody></tbody></table>
            </section>
          </section>
          <section id="view-devices" class="view" hidden>
            <div class="split">
              <table id="devices" class="list" aria-label="Devices">
                <thead><tr><th>Device</th><th>Platform</th><th>App</th><th>State</th></tr></thead>
                <tbody></tbody>
              </table>
              <article id="device" class="detail" aria-live="polite"><p class="hint">Select a device.</p></article>
            </div>
          </section>
          <section id="view-topics" class="view" hidden>
            <table id="topics" class="list" aria-label="Topics">
              <thead><tr><th>Topic</th><th>Subscribers</th><th>Devices</th></tr></thead>
              <tbody></tbody>
            </table>
          </section>
        </main>
        <script src="/ui/app.js"></script>
        </body>
        </html>
        """#
}
