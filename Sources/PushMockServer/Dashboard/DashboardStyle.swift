/// The dashboard's stylesheet.
enum DashboardStyle {
    static let css = #"""
        :root { --fg: #1d2329; --muted: #5f6b76; --line: #d9dee3; --bg: #f6f7f9; --accent: #1a66d2; --ok: #1e7d34; --bad: #b3261e; --warn: #9a6700; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
        header { display: flex; align-items: center; gap: 16px; padding: 8px 16px; background: #fff; border-bottom: 1px solid var(--line); }
        h1 { font-size: 18px; margin: 0; }
        nav { display: flex; gap: 4px; }
        button, .button { font: inherit; padding: 5px 10px; border: 1px solid var(--line); border-radius: 6px; background: #fff; color: var(--fg); cursor: pointer; text-decoration: none; }
        button:hover, .button:hover { border-color: var(--accent); }
        :focus-visible { outline: 3px solid var(--accent); outline-offset: 1px; }
        .tab[aria-current="page"] { background: var(--accent); color: #fff; border-color: var(--accent); }
        .project { margin-left: auto; color: var(--muted); }
        .live { font-size: 12px; padding: 2px 8px; border-radius: 10px; }
        .live.on { background: #dff3e4; color: var(--ok); }
        .live.off { background: #fbe3e1; color: var(--bad); }
        main { padding: 12px 16px; }
        .filters { display: flex; flex-wrap: wrap; gap: 8px; margin-bottom: 12px; align-items: center; }
        input, select { font: inherit; padding: 5px 8px; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
        .split { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 12px; align-items: start; }
        table.list { width: 100%; border-collapse: collapse; background: #fff; border: 1px solid var(--line); }
        .list th, .list td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
        .list th { font-size: 12px; color: var(--muted); font-weight: 600; }
        .list tbody tr { cursor: pointer; }
        .list tbody tr:hover, .list tbody tr.selected { background: #eaf1fd; }
        .detail { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 12px; min-height: 120px; overflow-wrap: anywhere; }
        .detail h2 { font-size: 16px; margin: 0 0 8px; }
        .detail h3 { font-size: 14px; margin: 14px 0 6px; }
        pre { background: var(--bg); padding: 8px; border-radius: 4px; overflow: auto; max-height: 320px; font-size: 12px; margin: 4px 0; white-space: pre-wrap; word-break: break-all; }
        button[aria-pressed="true"] { background: #eaf1fd; border-color: var(--accent); font-weight: 600; }
        .legend { display: inline-flex; gap: 10px; margin-left: 10px; }
        .legend i { display: inline-block; width: 10px; height: 10px; margin-right: 3px; vertical-align: -1px; }
        .hint { color: var(--muted); }
        .pill { display: inline-block; font-size: 11px; padding: 1px 6px; border-radius: 8px; margin: 1px 2px 1px 0; background: var(--bg); border: 1px solid var(--line); }
        .pill.good { color: var(--ok); border-color: #b7dfc1; }
        .pill.bad { color: var(--bad); border-color: #f0c2be; }
        .pill.wait { color: var(--warn); border-color: #ecd9a8; }
        .cards { display: grid; grid-template-columns: repeat(5, minmax(0, 1fr)); gap: 12px; margin-bottom: 12px; }
        .card { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; }
        .card .n { font-size: 26px; font-weight: 600; }
        .card .k { color: var(--muted); font-size: 12px; }
        .charts { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; margin-bottom: 12px; }
        figure { margin: 0; background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 8px; }
        figcaption { font-size: 12px; color: var(--muted); }
        svg { width: 100%; height: 180px; }
        .controls { display: flex; flex-wrap: wrap; gap: 6px; margin: 6px 0; }
        .device-device { font-weight: 600; }
        @media (max-width: 900px) { .split, .charts { grid-template-columns: 1fr; } .cards { grid-template-columns: repeat(2, 1fr); } }
        """#
}
