// report.html's script: reads the data blob (html_report.cpp, experiment/html_pages.cpp) and
// builds the page with uPlot. Every text that came from the data is set with textContent, never
// parsed as HTML. This file holds the helpers and the page of one run; experiment.js adds the
// pages of a sweep, a search and a comparison to `tb.pages`; the template then calls tb.main().
var tb = (function () {
  "use strict";
  var started = performance.now();
  var errors = [];
  var selfcheck = document.getElementById("selfcheck");
  window.addEventListener("error", function (e) {
    errors.push(String(e.message || e));
  });
  var origError = console.error;
  console.error = function () {
    errors.push(Array.prototype.join.call(arguments, " "));
    origError.apply(console, arguments);
  };

  var data = JSON.parse(document.getElementById("tokenbench-data").textContent);
  var main = document.getElementById("main");
  var toc = document.getElementById("toc");
  var charts = [];
  var COLORS = {
    ok: "#2e7d32", scheduled: "#9aa5b1", sent: "#1d4e89", first_token: "#e69500",
    error: "#c62828", line: "#1d4e89", line2: "#e69500", line3: "#6a1b9a"
  };
  // Distinct colours for overlaid runs (levels, targets), in order.
  var PALETTE = ["#1d4e89", "#e69500", "#2e7d32", "#c62828", "#6a1b9a", "#00838f", "#8d6e63",
    "#ad1457", "#558b2f", "#283593", "#ef6c00", "#4e342e"];

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function section(id, title) {
    var s = el("section");
    s.id = id;
    s.appendChild(el("h2", title));
    main.appendChild(s);
    var a = el("a", title);
    a.href = "#" + id;
    toc.appendChild(a);
    return s;
  }
  function fmt(v) {
    if (v === null || v === undefined) return "";
    if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(6)));
    return String(v);
  }
  // A table; a cell may be a DOM node (a link) instead of a value.
  function table(parent, head, rows, rowClass) {
    var t = el("table");
    var tr = el("tr");
    head.forEach(function (h) { tr.appendChild(el("th", h)); });
    t.appendChild(tr);
    rows.forEach(function (r, i) {
      var row = el("tr");
      if (rowClass) row.className = rowClass(i) || "";
      r.forEach(function (c) {
        if (c instanceof Node) {
          var td = el("td");
          td.appendChild(c);
          row.appendChild(td);
        } else {
          row.appendChild(el("td", fmt(c), typeof c === "number" ? "num" : ""));
        }
      });
      t.appendChild(row);
    });
    parent.appendChild(t);
    return t;
  }
  // A link to a page beside this one (a level's or a target's report.html).
  function link(text, href) {
    var a = el("a", text);
    a.href = href;
    return a;
  }
  // One uPlot chart in `parent`; `note` says what was downsampled.
  function chart(parent, title, opts, series, note) {
    var box = el("div", null, "chart");
    parent.appendChild(box);
    if (note) box.appendChild(el("p", note, "note"));
    opts.title = title;
    opts.width = opts.width || 620;
    opts.height = opts.height || 260;
    try {
      charts.push(new uPlot(opts, series, box));
    } catch (e) {
      errors.push("chart " + title + ": " + e);
    }
  }
  function lineSeries(label, color, extra) {
    var s = { label: label, stroke: color, width: 1.5 };
    for (var k in extra) s[k] = extra[k];
    return s;
  }
  // A series drawn as markers only.
  function pointSeries(label, color, size) {
    return { label: label, stroke: color, fill: color, width: 0, paths: function () { return null; },
      points: { show: true, size: size || 3, stroke: color, fill: color } };
  }
  function configSection(text, what) {
    var s = section("config", "Configuration");
    var cfg = el("details");
    cfg.appendChild(el("summary", what));
    cfg.appendChild(el("pre", text || ""));
    s.appendChild(cfg);
  }
  // Flattens a JSON value into [path, value] rows: {a: {b: 1}, c: [2]} -> a.b 1, c[0] 2.
  function flatten(value, path, rows) {
    if (value !== null && typeof value === "object") {
      var keys = Object.keys(value);
      if (!keys.length) rows.push([path, Array.isArray(value) ? "none" : ""]);
      keys.forEach(function (k) {
        flatten(value[k], Array.isArray(value) ? path + "[" + k + "]" : (path ? path + "." + k : k), rows);
      });
    } else {
      rows.push([path, value === null ? "n/a" : value]);
    }
    return rows;
  }

  var pages = {};

  // --buckets: a table per item, and TTFT and E2EL p95 per bucket as a chart.
  function bucketsSection(list) {
    var s = section("buckets", "By length");
    list.forEach(function (spec) {
      var rows = spec.buckets || [];
      var name = spec.dimension === "output" ? "output" : "input";
      var range = function (b) { return b.hi === null ? b.lo + "+" : b.lo + "-" + (b.hi - 1); };
      s.appendChild(el("h3", "By " + name + " length (tokens)"));
      table(s, ["tokens", "done", "failed", "mean " + name + " tokens", "TTFT p50", "TTFT p95",
        "TPOT p50", "TPOT p95", "ITL p95", "E2EL p50", "E2EL p95"], rows.map(function (b) {
        return [range(b), b.completed, b.failed,
          name === "output" ? b.mean_output_tokens : b.mean_input_tokens,
          b.ttft_ms.p50, b.ttft_ms.p95, b.tpot_ms.p50, b.tpot_ms.p95, b.itl_ms.p95,
          b.e2el_ms.p50, b.e2el_ms.p95];
      }));
      var idx = rows.map(function (b, i) { return i; });
      chart(s, "p95 by " + name + " length bucket (ms)",
        { scales: { x: { time: false } },
          axes: [{ label: name + " tokens", splits: function () { return idx; },
            values: function (u, splits) { return splits.map(function (i) {
              return rows[i] ? range(rows[i]) : ""; }); } }, { label: "ms" }],
          series: [{}, lineSeries("TTFT p95", COLORS.line, { points: { show: true } }),
            lineSeries("E2EL p95", COLORS.line2, { points: { show: true } })] },
        [idx, rows.map(function (b) { return b.ttft_ms.p95; }),
          rows.map(function (b) { return b.e2el_ms.p95; })]);
    });
  }

  // The self-checks: findings first, then one table per check with its readings.
  function checksTables(s, checks) {
    (checks.findings || []).forEach(function (f) { s.appendChild(el("p", "finding: " + f, "finding")); });
    if (!(checks.findings || []).length) s.appendChild(el("p", "no findings", "note"));
    var grid = el("div", null, "checks");
    s.appendChild(grid);
    Object.keys(checks).filter(function (k) { return k !== "findings"; }).forEach(function (k) {
      var box = el("div", null, "check");
      box.appendChild(el("h3", k.replace(/_/g, " ")));
      if (checks[k] === null) box.appendChild(el("p", "not measured in this run", "note"));
      else table(box, ["reading", "value"], flatten(checks[k], "", []));
      grid.appendChild(box);
    });
    s.appendChild(el("p", "tokenbench.checks of summary.json; docs/METRICS.md, \"Self-checks\"", "note"));
  }

  pages.run = function () {
    var grid;
    // Subtitle and configuration.
    var key = {};
    (data.key || []).forEach(function (kv) { key[kv[0]] = kv[1]; });
    document.getElementById("subtitle").textContent =
      [key.model_id || key.model || "", key.backend || "", key.date || ""].filter(Boolean).join(" · ");

    var s = section("summary", "Summary");
    var keyBox = el("details");
    keyBox.appendChild(el("summary", "Key figures (summary.json)"));
    table(keyBox, ["figure", "value"], (data.key || []).map(function (kv) { return [kv[0], kv[1]]; }));
    s.appendChild(keyBox);
    (data.warnings || []).forEach(function (w) { s.appendChild(el("p", "warning: " + w, "finding")); });
    var pct = data.percentiles || {};
    var pnames = [];
    Object.keys(pct).forEach(function (n) {
      Object.keys(pct[n].percentiles || {}).forEach(function (p) {
        if (pnames.indexOf(p) < 0) pnames.push(p);
      });
    });
    var prow = Object.keys(pct).filter(function (n) { return pct[n].count; }).map(function (n) {
      var dd = pct[n];
      return [n, dd.count, dd.mean, dd.median].concat(pnames.map(function (p) {
        return (dd.percentiles || {})[p];
      }), [dd.min, dd.max]);
    });
    if (prow.length) {
      s.appendChild(el("h3", "Percentiles (summary.json tokenbench.distributions)"));
      table(s, ["figure", "count", "mean", "median"].concat(pnames, ["min", "max"]), prow);
    }
    var d = el("details");
    d.appendChild(el("summary", "Console report (report.txt): summary and percentile tables"));
    d.appendChild(el("pre", data.console || ""));
    s.appendChild(d);

    if ((data.buckets || []).length) bucketsSection(data.buckets);

    configSection(data.config_yaml, "config.yaml, as the run used it (secret headers redacted)");

    // Distributions: histogram and CDF of each, log x axis.
    s = section("distributions", "Distributions");
    grid = el("div", null, "charts");
    s.appendChild(grid);
    ["TTFT", "TPOT", "ITL", "E2EL"].forEach(function (name) {
      var dist = (data.distributions || {})[name];
      if (!dist) return;
      if (!dist.n) {
        grid.appendChild(el("p", name + ": no values", "note"));
        return;
      }
      var log = dist.log && dist.edges[0] > 0;
      var xs = { time: false };
      if (log) xs.distr = 3;
      var mids = [], counts = [];
      for (var i = 0; i < dist.counts.length; i++) {
        mids.push(log ? Math.sqrt(dist.edges[i] * dist.edges[i + 1]) : (dist.edges[i] + dist.edges[i + 1]) / 2);
        counts.push(dist.counts[i]);
      }
      chart(grid, name + " histogram (" + dist.n + " values, " + dist.unit + (log ? ", log x" : "") + ")",
        { scales: { x: xs }, axes: [{ label: name + " (" + dist.unit + ")" }, { label: "count" }],
          series: [{}, lineSeries("count", COLORS.line, { fill: "rgba(29,78,137,0.25)",
            paths: uPlot.paths.stepped({ align: 1 }) })] },
        [mids, counts]);
      var cx = [], cy = [];
      for (var j = 0; j < dist.cdf_x.length; j++) {
        if (!log || dist.cdf_x[j] > 0) { cx.push(dist.cdf_x[j]); cy.push(dist.cdf_y[j]); }
      }
      chart(grid, name + " CDF" + (log ? " (log x)" : ""),
        { scales: { x: xs, y: { range: [0, 1] } },
          axes: [{ label: name + " (" + dist.unit + ")" }, { label: "fraction ≤ x" }],
          series: [{}, lineSeries("fraction", COLORS.line2)] },
        [cx, cy], dist.cdf_sampled ? "CDF sampled at " + dist.cdf_x.length + " of " + dist.n + " values, evenly by rank" : null);
    });

    // Per-request timeline: one column per request in schedule order; its stamps as points.
    s = section("timeline", "Per-request timeline");
    var tl = data.timeline || {};
    if (tl.index && tl.index.length) {
      var okDone = [], errDone = [];
      for (var r = 0; r < tl.index.length; r++) {
        var ok = tl.outcome[r] === "ok";
        okDone.push(ok ? tl.done[r] : null);
        errDone.push(ok ? null : tl.done[r]);
      }
      var pts = pointSeries;
      chart(s, "Scheduled, sent, first token and done per request (s since the first stamp)",
        { width: 1260, height: 340, scales: { x: { time: false } },
          axes: [{ label: "request (in schedule order)" }, { label: "seconds" }],
          series: [{}, pts("scheduled", COLORS.scheduled, 2), pts("sent", COLORS.sent, 2),
            pts("first token", COLORS.first_token, 2), pts("done (ok)", COLORS.ok, 3),
            pts("done (error)", COLORS.error, 4)] },
        [tl.index, tl.scheduled, tl.sent, tl.first_token, okDone, errDone],
        tl.total > tl.index.length ? "showing " + tl.index.length + " of " + tl.total +
          " requests, evenly sampled in schedule order" : null);
    } else {
      s.appendChild(el("p", "no requests", "note"));
    }

    // Over time.
    s = section("overtime", "Over time");
    var se = data.series || {};
    if (se.t && se.t.length) {
      grid = el("div", null, "charts");
      s.appendChild(grid);
      var binNote = "bins of " + se.bin_s + " s";
      var tx = { scales: { x: { time: false } } };
      var mk = function (title, label, values, color) {
        chart(grid, title, { scales: tx.scales, axes: [{ label: "seconds" }, { label: label }],
          series: [{}, lineSeries(label, color)] }, [se.t, values], binNote);
      };
      mk("Output tokens/s", "tok/s", se.output_tok_s, COLORS.line);
      mk("Requests in flight", "in flight", se.in_flight, COLORS.line3);
      mk("Completed requests per bin", "completed", se.completed, COLORS.ok);
      mk("Errors per bin", "errors", se.errors, COLORS.error);
    }

    // Errors.
    s = section("errors", "Errors");
    var errs = data.errors || [];
    if (errs.length) {
      table(s, ["class", "HTTP status", "count", "example message"], errs.map(function (e) {
        return [e["class"], e.status || "", e.count, e.example];
      }));
    } else {
      s.appendChild(el("p", "no failed requests"));
    }

    // Self-checks.
    s = section("checks", "Self-checks");
    if (data.checks) {
      checksTables(s, data.checks);
    } else {
      s.appendChild(el("p", "no self-checks (no completed request)", "note"));
    }

    // Telemetry.
    var tel = data.telemetry || {};
    if (tel.server || tel.gpu) {
      s = section("telemetry", "Telemetry");
      grid = el("div", null, "charts");
      s.appendChild(grid);
      var telChart = function (src, title, names, colors) {
        var series = [{}], cols = [src.t];
        names.forEach(function (n, i) {
          if (src[n] && src[n].some(function (v) { return v !== null; })) {
            series.push(lineSeries(n, colors[i]));
            cols.push(src[n]);
          }
        });
        if (cols.length < 2 || !src.t.length) return;
        chart(grid, title, { scales: { x: { time: false } }, axes: [{ label: "seconds" }, {}], series: series },
          cols, src.sampled ? "evenly sampled to " + src.t.length + " points" : null);
      };
      if (tel.server) {
        telChart(tel.server, "Server: running and waiting requests", ["running", "waiting"], [COLORS.line, COLORS.line2]);
        telChart(tel.server, "Server: KV cache use (%)", ["kv_cache_pct"], [COLORS.line3]);
      }
      if (tel.gpu) {
        telChart(tel.gpu, "GPU utilisation (%)", ["util_pct"], [COLORS.line]);
        telChart(tel.gpu, "GPU power (W)", ["power_w"], [COLORS.line2]);
      }
    }

  };

  function start() {
    var page = pages[data.kind || "run"];
    if (page) page();
    else errors.push("unknown page kind " + data.kind);
    finish();
  }

  // Self-check for tests (tests/e2e/html_report_test.cpp): charts drawn, errors seen.
  function canvasDrawn(u) {
    var c = u.ctx.canvas;
    if (!c.width || !c.height) return false;
    var px = u.ctx.getImageData(0, 0, c.width, c.height).data;
    for (var i = 3; i < px.length; i += 4) if (px[i] !== 0) return true;
    return false;
  }
  function finish() {
    selfcheck.setAttribute("data-build-ms", String(Math.round(performance.now() - started)));
    setTimeout(function () {
      var drawn = 0;
      charts.forEach(function (u) { if (canvasDrawn(u)) drawn++; });
      selfcheck.setAttribute("data-charts", String(charts.length));
      selfcheck.setAttribute("data-charts-drawn", String(drawn));
      // What the page's Content-Security-Policy blocked (the template's first script keeps it).
      (window.tbBlocked || []).forEach(function (b) { errors.push("blocked by the page's policy: " + b); });
      selfcheck.setAttribute("data-errors", errors.join(" | "));
      selfcheck.setAttribute("data-pwned", window.__pwned === undefined ? "" : String(window.__pwned));
      selfcheck.setAttribute("data-done", "1");
    }, 300);
  }

  return { data: data, pages: pages, main: start, el: el, section: section, fmt: fmt, table: table,
    link: link, chart: chart, lineSeries: lineSeries, pointSeries: pointSeries, COLORS: COLORS,
    PALETTE: PALETTE, configSection: configSection, errors: errors };
})();
