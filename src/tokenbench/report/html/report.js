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

  // A job's call depths, in order: the palette without its red, which marks a failed call.
  var DEPTHS = PALETTE.filter(function (c) { return c !== COLORS.error; });

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
  // A job run's figures (summary.json tokenbench.jobs, docs/METRICS.md "Jobs"): cards, then TTFT,
  // TPOT and the prefix cache's hit rates by call depth and by call id.
  function jobFigures(parent, jf, dists) {
    var pct = function (v) { return defined(v) ? fixed(100 * v, 1) + " %" : "-"; };
    var p = function (d, key) {
      if (!d) return "-";
      var v = key === "median" ? d.median : (d.percentiles || {})[key];
      return defined(v) ? significant(v) : "-";
    };
    var cards = el("div", null, "cards");
    parent.appendChild(cards);
    card(cards, "jobs-completed", "Jobs completed", [["completed", jf.completed + " of " + jf.jobs]], null,
      jf.failed + " failed, " + jf.incomplete + " cut short");
    card(cards, "jobs-rate", "Jobs", [["per-s", defined(jf.jobs_per_s) ? fixed(jf.jobs_per_s, 4) : "-"]],
      "per s", defined(jf.jobs_per_hour_per_user) ? countCell(Math.round(jf.jobs_per_hour_per_user)) +
      " jobs/h per user" : null);
    card(cards, "job-ms", "Job latency p50 / p99", [["p50", p(dists.job_ms, "median")],
      ["p99", p(dists.job_ms, "p99")]], "ms", "first send to the last call's last byte");
    card(cards, "final-ttft", "Final answer TTFT p50 / p99", [["p50", p(dists.final_ttft_ms, "median")],
      ["p99", p(dists.final_ttft_ms, "p99")]], "ms", "first send to the last call's first token");
    var cp = jf.critical_path || {};
    card(cards, "critical", "Critical path: LLM", [["share", pct(cp.llm_share)]], null,
      "LLM " + (defined(cp.mean_llm_ms) ? significant(cp.mean_llm_ms) : "-") + " ms, delays " +
      (defined(cp.mean_delay_ms) ? significant(cp.mean_delay_ms) : "-") + " ms, other " +
      (defined(cp.mean_other_ms) ? significant(cp.mean_other_ms) : "-") + " ms (means)");
    card(cards, "per-job", "Calls per job (mean)", [["calls", defined(jf.mean_calls) ? fixed(jf.mean_calls, 1) : "-"]],
      null, "tokens per job: " + countCell(Math.round(jf.mean_input_tokens || 0)) + " in (" +
      countCell(Math.round(jf.mean_cached_tokens || 0)) + " cached), " +
      countCell(Math.round(jf.mean_output_tokens || 0)) + " out");
    if (defined(jf.job_goodput)) {
      card(cards, "job-goodput", "Job goodput", [["per-s", fixed(jf.job_goodput, 4)]], "per s",
        jf.good_jobs + " jobs within " + jf.slo_job_ms + " ms");
    }
    var groups = function (title, key, g) {
      // c2 before c10: ids in natural order, as the console lists them.
      var names = Object.keys(g || {}).sort(function (a, b) {
        return a.localeCompare(b, "en", { numeric: true });
      });
      if (!names.length) return;
      parent.appendChild(el("h3", title));
      table(parent, [key, "calls", "TTFT p50 (ms)", "TTFT p95 (ms)", "TPOT mean (ms)", "cache hit",
        "ideal hit"], names.map(function (n) {
        var r = g[n];
        return [n, num(countCell(r.completed)), num(p(r.ttft_ms, "median")), num(p(r.ttft_ms, "p95")),
          num(r.tpot_ms && defined(r.tpot_ms.mean) ? significant(r.tpot_ms.mean) : "-"),
          num(pct(r.cache_hit_rate)), num(pct(r.ideal_cache_hit_rate))];
      }));
    };
    groups("By call depth", "depth", jf.by_depth);
    groups("By call id" + (jf.call_ids_capped ? " (the first 64 ids)" : ""), "call", jf.by_call);
  }

  // One job's calls as an SVG Gantt chart (report/job_gantt.h gives the rows).
  function gantt(job) {
    var NS = "http://www.w3.org/2000/svg", label = 140, width = 1200, row = 16;
    var end = 0;
    job.calls.forEach(function (c) { end = Math.max(end, c.done || c.sent || 0); });
    var x = function (ms) { return label + (width - label - 60) * (end > 0 ? ms / end : 0); };
    var svg = document.createElementNS(NS, "svg");
    svg.setAttribute("class", "gantt");
    svg.setAttribute("width", String(width));
    svg.setAttribute("height", String(row * job.calls.length + 24));
    var add = function (tag, attrs, text) {
      var e = document.createElementNS(NS, tag);
      Object.keys(attrs).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
      if (text !== undefined) e.textContent = text;
      svg.appendChild(e);
      return e;
    };
    add("text", { x: 0, y: 12, "font-weight": "bold" }, "job " + job.name + " (#" + job.n + "), " +
      fmt(end) + " ms");
    job.calls.forEach(function (c, i) {
      var y = 18 + i * row, color = c.ok ? DEPTHS[c.depth % DEPTHS.length] : COLORS.error;
      add("text", { x: 4, y: y + 11, "font-size": 11 }, c.call);
      if (c.sent === null || c.done === null) return;
      var first = c.first_token === null ? c.done : c.first_token;
      add("rect", { x: x(c.sent), y: y + 2, width: Math.max(1, x(first) - x(c.sent)), height: row - 4,
        fill: color, "fill-opacity": 0.35 }).appendChild(
        document.createElementNS(NS, "title")).textContent = c.call + ": sent " + fmt(c.sent) +
        " ms, first token " + fmt(c.first_token) + " ms";
      add("rect", { x: x(first), y: y + 2, width: Math.max(1, x(c.done) - x(first)), height: row - 4,
        fill: color }).appendChild(document.createElementNS(NS, "title")).textContent =
        c.call + ": depth " + c.depth + ", done " + fmt(c.done) + " ms";
    });
    return svg;
  }
  function fmt(v) {
    if (v === null || v === undefined) return "";
    if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(6)));
    return String(v);
  }
  function defined(v) { return typeof v === "number" && isFinite(v); }
  // Numbers as the console prints them (report/console.cpp), digit for digit. fixed(v, d) is
  // fmt's "{:.Nf}": a tie (an exact ...5 past the last digit) rounds to even, where toFixed
  // rounds it away from zero. A double is a tie only if it has at most d + 1 decimals, so its
  // expansion to d + 30 decimals shows whether it is one.
  function fixed(v, d) {
    var s = v.toFixed(d);
    var exact = Math.abs(v).toFixed(d + 30);
    if (!/50{29}$/.test(exact)) return s;
    var kept = exact.slice(0, exact.length - 30).replace(/\.$/, "");
    return Number(kept.charAt(kept.length - 1)) % 2 === 0 ? (v < 0 ? "-" : "") + kept : s;
  }
  // significant_cell: a latency in ms, at least two decimals and three significant digits.
  function significant(v) {
    if (!defined(v)) return "-";
    if (v === 0) return "0";
    var magnitude = Math.floor(Math.log10(Math.abs(v)));
    return fixed(v, Math.min(12, Math.max(2, 2 - magnitude)));
  }
  // fixed4: seconds and rates. count_cell: token counts, whole or with two decimals.
  function fixed4(v) { return defined(v) ? fixed(v, 4) : "-"; }
  function countCell(v) { return !defined(v) ? "-" : v === Math.floor(v) ? fixed(v, 0) : fixed(v, 2); }
  // A figure's text by its name, with the console's rule for its unit: `_ms` a latency, token
  // counts, throughputs, rates and seconds with four decimals; the Checks block's ratios
  // (p99/p50 with one decimal, the stream check's with two) and shares in % (none); whole
  // counts as they are. Undefined: "-", as the console.
  function figureText(name, v) {
    if (v === null || v === undefined) return "-";
    if (typeof v !== "number") return String(v);
    if (!isFinite(v)) return String(v);
    if (/_ms$/.test(name)) return significant(v);
    if (/_over_p50$/.test(name)) return fixed(v, 1);
    if (/_ratio$/.test(name)) return fixed(v, 2);
    if (/_pct$/.test(name)) return fixed(v, 0);
    if (/tokens$/.test(name)) return countCell(v);
    if (/throughput|goodput|_rate$|_tps$|duration|_s$/.test(name)) return fixed4(v);
    return Number.isInteger(v) ? String(v) : fixed4(v);
  }
  // A table cell holding an already formatted number (right-aligned).
  function num(text) { return { num: text }; }
  function figure(name, v) { return typeof v === "number" ? num(figureText(name, v)) : figureText(name, v); }
  // A table; a cell may be a DOM node (a link) or num(text) instead of a value.
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
        } else if (c !== null && typeof c === "object" && "num" in c) {
          row.appendChild(el("td", c.num, "num"));
        } else {
          row.appendChild(el("td", fmt(c), typeof c === "number" ? "num" : ""));
        }
      });
      t.appendChild(row);
    });
    parent.appendChild(t);
    return t;
  }
  // A link to a page beside this one (a level's or a target's report.html); only a relative
  // "./dir/report.html" (or "./dir/level/report.html") becomes one (never a javascript: or another site's URL): else the text.
  function link(text, href) {
    // One or two directories down (a server configuration's level), never "." or "..".
    if (typeof href !== "string" ||
        !/^\.\/[A-Za-z0-9._+=,@-]+(\/[A-Za-z0-9._+=,@-]+)?\/report\.html$/.test(href) ||
        /\/\.\.?\//.test(href.slice(1))) {
      return String(text);
    }
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
      rows.push([path, value]);
    }
    return rows;
  }

  var pages = {};

  // What the page's times are (html_report.cpp's data.time): model time under --sim-time.
  var basis = data.time || {};
  var MODEL = basis.model ? "model time" : "";
  function withModel(text) { return MODEL ? text + ", " + MODEL : text; }

  // --lora-modules, --model-mix: a row per adapter or model, and TTFT and E2EL p95 as a chart.
  function mixSection(mix) {
    var lora = mix.kind === "lora";
    var s = section("mix", lora ? "By LoRA adapter" : "By model");
    var f = function (v, d) { return v === null || v === undefined ? "-" : num(v.toFixed(d)); };
    table(s, [lora ? "adapter" : "model", "share", "measured share", "succeeded", "failed", "req/s",
      "output tok/s", "TTFT p50 (ms)", "TTFT p95 (ms)", "TPOT mean (ms)", "TPOT p95 (ms)", "E2EL p50 (ms)",
      "E2EL p95 (ms)"], mix.members.map(function (m) {
      return [m.name, f(100 * m.share, 0) , m.measured_share === null ? "-" : f(100 * m.measured_share, 1),
        num(String(m.completed)), num(String(m.failed)), f(m.request_throughput, 2), f(m.output_throughput, 1),
        f(m.median_ttft_ms, 1), f(m.p95_ttft_ms, 1), f(m.mean_tpot_ms, 2), f(m.p95_tpot_ms, 2),
        f(m.median_e2el_ms, 1), f(m.p95_e2el_ms, 1)];
    }));
    s.appendChild(el("p", "share: the intended share of the requests (" + (lora ? "--lora-weights" : "--model-mix") +
      "); measured share: of the measured requests. Shares in percent.", "note"));
  }

  // Each /metrics source's account (summary.json's tokenbench.servers): one row each.
  function serversTable(parent, list) {
    if (!list.length) return;
    var f = function (v, d) { return v === null || v === undefined ? "-" : num(v.toFixed(d)); };
    var phase = function (a, k) { return a.measure_phase ? a.measure_phase[k] : null; };
    var gauge = function (a, k) { return a.gauges && a.gauges[k] ? a.gauges[k].mean : null; };
    var lat = function (a, k) { return a.latency && a.latency[k] ? a.latency[k].mean_ms : null; };
    var spec = function (a) { return a.speculative_decoding ? a.speculative_decoding.acceptance_length : null; };
    parent.appendChild(el("h3", "Servers (/metrics over the measure phase)"));
    table(parent, ["source", "role", "server", "requests", "prompt tok", "generation tok", "running (mean)",
      "KV cache % (mean)", "TTFT mean (ms)", "acceptance length", "LoRA adapters"], list.map(function (a) {
      return [a.name || a.url, a.role || "", a.server, f(phase(a, "requests_finished"), 0),
        f(phase(a, "prompt_tokens"), 0), f(phase(a, "generation_tokens"), 0), f(gauge(a, "running"), 1),
        f(gauge(a, "kv_cache_usage_pct"), 1), f(lat(a, "ttft"), 2), f(spec(a), 2),
        a.lora ? a.lora.adapters.join(", ") : "-"];
    }));
  }

  // --buckets: a table per item, and TTFT and E2EL p95 per bucket as a chart.
  function bucketsSection(list) {
    var s = section("buckets", "By length");
    list.forEach(function (spec) {
      var rows = spec.buckets || [];
      var name = spec.dimension === "output" ? "output" : "input";
      var range = function (b) { return b.hi === null ? b.lo + "+" : b.lo + "-" + (b.hi - 1); };
      s.appendChild(el("h3", "By " + name + " length (tokens; ms" + (MODEL ? ", " + MODEL : "") + ")"));
      table(s, ["tokens", "done", "failed", "mean " + name + " tokens", "TTFT p50", "TTFT p95",
        "TPOT p50", "TPOT p95", "ITL p95", "E2EL p50", "E2EL p95"], rows.map(function (b) {
        return [range(b), num(String(b.completed)), num(String(b.failed)),
          num(countCell(name === "output" ? b.mean_output_tokens : b.mean_input_tokens))].concat(
          [b.ttft_ms.p50, b.ttft_ms.p95, b.tpot_ms.p50, b.tpot_ms.p95, b.itl_ms.p95,
            b.e2el_ms.p50, b.e2el_ms.p95].map(function (v) { return num(significant(v)); }));
      }));
      var idx = rows.map(function (b, i) { return i; });
      chart(s, "p95 by " + name + " length bucket (" + withModel("ms") + ")",
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
      else table(box, ["reading", "value"], flatten(checks[k], "", []).map(function (r) {
        return [r[0], figure(r[0], r[1])];
      }));
      grid.appendChild(box);
    });
    s.appendChild(el("p", "tokenbench.checks of summary.json; docs/METRICS.md, \"Self-checks\"" +
      (MODEL ? "; " + MODEL + ", except the client's own: send lag, achieved rate and client CPU, in real time" : ""), "note"));
  }

  // The banner over a run against serve-sim: which clock the figures are on.
  function timeNote(parent) {
    if (basis.model) {
      parent.appendChild(el("p", "Model time (--sim-time): serve-sim ran " + basis.scale +
        "x faster than the deployment it models, and every time and rate on this page (cards, " +
        "tables, charts) is the model's: the server's part of each request times " + basis.scale +
        ". The client's own costs are never scaled: queue time (send lag) and client CPU are " +
        "real time.", "timebasis"));
    } else if (basis.sim_scale && basis.sim_scale !== 1) {
      parent.appendChild(el("p", "Real time of serve-sim running " + basis.sim_scale + "x faster " +
        "than the deployment it models: latencies are " + basis.sim_scale + "x shorter and rates " +
        basis.sim_scale + "x higher than the model's (--sim-time reports model time).", "timebasis"));
    }
  }

  function cut(text, n) { return text.length > n ? text.slice(0, n - 1) + "…" : text; }
  // One headline card: a label with the unit, one or more formatted values (each with an id for
  // the tests) and a note.
  function card(parent, id, label, values, unit, note, cls) {
    var c = el("div", null, "card" + (cls ? " " + cls : ""));
    c.id = "card-" + id;
    c.appendChild(el("div", unit ? label + " (" + unit + ")" : label, "label"));
    var v = el("div", null, "value");
    values.forEach(function (pair, i) {
      if (i) v.appendChild(el("span", " / ", "sep"));
      var span = el("span", pair[1]);
      span.id = "card-" + id + "-" + pair[0];
      v.appendChild(span);
    });
    c.appendChild(v);
    if (note) c.appendChild(el("div", note, "cardnote"));
    parent.appendChild(c);
  }

  // The headline: requests, throughputs, TTFT, TPOT and E2EL p50/p99 and the checks' verdict,
  // each formatted as report.txt prints it.
  function headlineCards(parent, key) {
    var pct = data.percentiles || {};
    var at = function (name, p) { return ((pct[name] || {}).percentiles || {})[p]; };
    var grid = el("div", null, "cards");
    grid.id = "cards";
    parent.appendChild(grid);
    card(grid, "requests", "Requests ok / failed", [["ok", figureText("completed", key.completed)],
      ["failed", figureText("failed", key.failed)]], "", key.completed + key.failed + " measured",
      key.failed ? "warn" : "");
    card(grid, "request-throughput", "Request throughput",
      [["value", fixed4(key.request_throughput)]], "req/s", MODEL);
    card(grid, "output-throughput", "Output token throughput",
      [["value", fixed4(key.output_throughput)]], "tok/s", MODEL);
    [["ttft", "TTFT"], ["tpot", "TPOT"], ["e2el", "E2EL"]].forEach(function (f) {
      card(grid, f[0], f[1] + " p50 / p99", [["p50", significant(at(f[0] + "_ms", "p50"))],
        ["p99", significant(at(f[0] + "_ms", "p99"))]], "ms", MODEL);
    });
    var cost = data.cost;
    if (cost) {
      var usd = function (v) { return defined(v) ? "$" + Number(v.toPrecision(4)) : "-"; };
      card(grid, "cost", "Cost per 1M output tokens", [["value", usd(cost.usd_per_million_output_tokens)]],
        "USD", usd(cost.usd_per_million_total_tokens) + " per 1M total tokens, " +
        usd(cost.usd_per_request) + " per request" +
        (defined(cost.usd_per_job) ? ", " + usd(cost.usd_per_job) + " per job" : "") + "; " +
        usd(cost.gpu_hour_price) + " per GPU-hour x " + cost.gpus + " GPU" + (cost.gpus === 1 ? "" : "s"));
    }
    var checks = data.checks;
    var findings = checks ? checks.findings || [] : [];
    var verdict = !checks ? "not checked" : findings.length ? findings.length + " finding" +
      (findings.length === 1 ? "" : "s") : "no findings";
    card(grid, "checks", "Checks", [["verdict", verdict]], "",
      !checks ? "no completed request" : findings.length ? cut(findings[0], 120) : "every self-check passed",
      !checks || findings.length ? "warn" : "ok");
    // Who held the run back (metrics/verdict.h): client, server, network or framework, or no one.
    var bound = data.verdict;
    if (bound) {
      card(grid, "bound", "Bound", [["value", bound.bound + (bound.kind ? " (" + bound.kind + ")" : "")]], "",
        cut((bound.evidence || []).join("; ") + (bound.remedy ? ". Remedy: " + bound.remedy : ""), 240),
        (bound.bound === "healthy" ? "ok" : "warn") + " wide");
    }
  }

  // One row per distribution: count, mean, the percentiles `keys`, min and max, each formatted.
  // When the table is wider than the page, the percentiles are split over as few tables as fit.
  function percentileTables(parent, pct, names, keys) {
    var box = el("div");
    parent.appendChild(box);
    var build = function (part) {
      return table(box, ["figure", "count", "mean"].concat(part, ["min", "max"]), names.map(function (n) {
        var dd = pct[n];
        var label = basis.model && n === "queue_time_ms" ? n + " (real time)" : n;
        return [label, num(String(dd.count))].concat([dd.mean].concat(part.map(function (p) {
          return (dd.percentiles || {})[p];
        }), [dd.min, dd.max]).map(function (v) { return num(figureText(n, v)); }));
      }));
    };
    for (var parts = 1; parts <= Math.max(1, keys.length); parts++) {
      var size = Math.max(1, Math.ceil(keys.length / parts)), built = [], i = 0;
      do {
        built.push(build(keys.slice(i, i + size)));
        i += size;
      } while (i < keys.length);
      var fits = built.every(function (t) { return t.offsetWidth <= box.clientWidth; });
      if (fits || size === 1) return;
      built.forEach(function (t) { box.removeChild(t); });
    }
  }

  // The summary: the headline cards, the warnings, then the percentile table; summary.json's
  // top-level figures and report.txt folded below.
  function summarySection(key) {
    var s = section("summary", "Summary");
    timeNote(s);
    headlineCards(s, key);
    (data.warnings || []).forEach(function (w) { s.appendChild(el("p", "warning: " + w, "finding")); });
    var pct = data.percentiles || {};
    var pnames = [];
    Object.keys(pct).forEach(function (n) {
      Object.keys(pct[n].percentiles || {}).forEach(function (p) {
        if (pnames.indexOf(p) < 0) pnames.push(p);
      });
    });
    var names = Object.keys(pct).filter(function (n) { return pct[n].count; });
    if (names.length) {
      s.appendChild(el("h3", "Percentiles (summary.json tokenbench.distributions" +
        (MODEL ? "; " + MODEL + ", queue time real" : "") + ")"));
      percentileTables(s, pct, names, pnames);
      s.appendChild(el("p", "ms: at least two decimals and three significant digits; tok/s " +
        "with four decimals; tokens whole or with two decimals (as report.txt); the median is p50",
        "note"));
    }
    var keyBox = el("details");
    keyBox.appendChild(el("summary", "All top-level figures (summary.json)"));
    table(keyBox, ["figure", "value"], (data.key || []).map(function (kv) {
      return [kv[0], figure(kv[0], kv[1])];
    }));
    s.appendChild(keyBox);
    var d = el("details");
    d.appendChild(el("summary", "Console report (report.txt): summary and percentile tables"));
    d.appendChild(el("pre", data.console || ""));
    s.appendChild(d);
  }

  pages.run = function () {
    var s, grid;
    // Subtitle and configuration.
    var key = {};
    (data.key || []).forEach(function (kv) { key[kv[0]] = kv[1]; });
    document.getElementById("subtitle").textContent =
      [key.model_id || key.model || "", key.backend || "", key.date || ""].filter(Boolean).join(" · ");

    summarySection(key);
    if ((data.buckets || []).length) bucketsSection(data.buckets);
    if (data.mix && (data.mix.members || []).length) mixSection(data.mix);

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
      chart(grid, name + " histogram (" + dist.n + " values, " + withModel(dist.unit) + (log ? ", log x" : "") + ")",
        { scales: { x: xs }, axes: [{ label: name + " (" + withModel(dist.unit) + ")" }, { label: "count" }],
          series: [{}, lineSeries("count", COLORS.line, { fill: "rgba(29,78,137,0.25)",
            paths: uPlot.paths.stepped({ align: 1 }) })] },
        [mids, counts]);
      var cx = [], cy = [];
      for (var j = 0; j < dist.cdf_x.length; j++) {
        if (!log || dist.cdf_x[j] > 0) { cx.push(dist.cdf_x[j]); cy.push(dist.cdf_y[j]); }
      }
      chart(grid, name + " CDF (" + withModel(dist.unit) + (log ? ", log x" : "") + ")",
        { scales: { x: xs, y: { range: [0, 1] } },
          axes: [{ label: name + " (" + withModel(dist.unit) + ")" }, { label: "fraction ≤ x" }],
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
      chart(s, "Scheduled, sent, first token and done per request (" + withModel("s since the first stamp") + ")",
        { width: 1260, height: 340, scales: { x: { time: false } },
          axes: [{ label: "request (in schedule order)" }, { label: withModel("seconds") }],
          series: [{}, pts("scheduled", COLORS.scheduled, 2), pts("sent", COLORS.sent, 2),
            pts("first token", COLORS.first_token, 2), pts("done (ok)", COLORS.ok, 3),
            pts("done (error)", COLORS.error, 4)] },
        [tl.index, tl.scheduled, tl.sent, tl.first_token, okDone, errDone],
        tl.total > tl.index.length ? "showing " + tl.index.length + " of " + tl.total +
          " requests, evenly sampled in schedule order" : null);
    } else {
      s.appendChild(el("p", "no requests", "note"));
    }

    // Agentic jobs: a Gantt chart of each sampled job, a bar per call from its send to its end,
    // the part before its first token lighter, coloured by depth.
    var jobs = data.jobs || [];
    var jf = data.job_figures;
    if (jobs.length || jf) {
      s = section("jobs", "Jobs");
      if (jf) jobFigures(s, jf, data.percentiles || {});
      if (jobs.length) {
        s.appendChild(el("h3", "Sampled jobs"));
        s.appendChild(el("p", jobs.length + " jobs, sampled evenly: each call from its send to its " +
          "end (lighter until its first token), ms since the job's first send, coloured by depth",
          "note"));
        jobs.forEach(function (job) { s.appendChild(gantt(job)); });
      }
    }

    // Over time.
    s = section("overtime", "Over time");
    var se = data.series || {};
    if (se.t && se.t.length) {
      grid = el("div", null, "charts");
      s.appendChild(grid);
      var binNote = "bins of " + se.bin_s + " s" + (MODEL ? " of " + MODEL : "");
      var tx = { scales: { x: { time: false } } };
      var mk = function (title, label, values, color, extra) {
        chart(grid, title, { scales: tx.scales, axes: [{ label: withModel("seconds") }, { label: label }],
          series: [{}, lineSeries(label, color, extra)] }, [se.t, values], binNote);
      };
      mk("Output tokens/s" + (MODEL ? " (" + MODEL + ")" : ""), "tok/s", se.output_tok_s, COLORS.line);
      if (se.read_lag_p99_ms) {
        // Beside throughput: how late the client read what the kernel had received.
        chart(grid, "Client read lag (ms, real time): worst window p99 and max in each bin",
          { scales: tx.scales, axes: [{ label: withModel("seconds") }, { label: "ms" }],
            series: [{}, lineSeries("p99", COLORS.line2), lineSeries("max", COLORS.error)] },
          [se.t, se.read_lag_p99_ms, se.read_lag_max_ms], binNote);
      }
      mk("Requests in flight (the most at once in each bin)", "in flight", se.in_flight, COLORS.line3,
        { paths: uPlot.paths.stepped({ align: 1 }) });
      mk("Completed requests per bin", "completed", se.completed, COLORS.ok);
      mk("Errors per bin", "errors", se.errors, COLORS.error);
    }

    // Errors.
    s = section("errors", "Errors");
    var errs = data.errors || [];
    if (errs.length) {
      table(s, ["class", "HTTP status", "count", "example message"], errs.map(function (e) {
        return [e["class"], e.status || "", num(String(e.count)), e.example];
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
    if (tel.server || tel.gpu || (data.servers || []).length) {
      s = section("telemetry", "Telemetry");
      serversTable(s, data.servers || []);
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
        chart(grid, title, { scales: { x: { time: false } }, axes: [{ label: withModel("seconds") }, {}], series: series },
          cols, src.sampled ? "evenly sampled to " + src.t.length + " points" : null);
      };
      if (tel.servers) {  // several /metrics sources: each one's running requests
        var palette = [COLORS.line, COLORS.line2, COLORS.line3, COLORS.line, COLORS.line2, COLORS.line3];
        tel.servers.forEach(function (src, i) {
          telChart(src, "Server " + src.name + ": running requests", ["running"], [palette[i % palette.length]]);
        });
      }
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
  // The page's layout, for tests: where the headline cards end as the page opens ("" when there
  // are none or they are hidden); then, every <details> opened, the document's scrollWidth, the
  // window's width, and the sections (or tables) wider than their room, which would scroll
  // sideways.
  function measureWidths() {
    var cards = document.getElementById("cards");
    var rect = cards ? cards.getBoundingClientRect() : null;
    selfcheck.setAttribute("data-cards-bottom", rect && rect.height > 0 ? String(Math.round(rect.bottom)) : "");
    var closed = Array.prototype.filter.call(document.querySelectorAll("details"),
      function (d) { return !d.open; });
    closed.forEach(function (d) { d.open = true; });
    var wide = [];
    Array.prototype.forEach.call(document.querySelectorAll("section"), function (sec) {
      if (sec.scrollWidth > sec.clientWidth) wide.push(sec.id);
    });
    Array.prototype.forEach.call(document.querySelectorAll("table"), function (t, i) {
      if (t.offsetWidth > t.parentNode.clientWidth) wide.push("table " + i);
    });
    selfcheck.setAttribute("data-scroll-width", String(document.documentElement.scrollWidth));
    selfcheck.setAttribute("data-window-width", String(window.innerWidth));
    selfcheck.setAttribute("data-too-wide", wide.join(" "));
    closed.forEach(function (d) { d.open = false; });
  }
  function finish() {
    selfcheck.setAttribute("data-build-ms", String(Math.round(performance.now() - started)));
    setTimeout(function () {
      var drawn = 0;
      charts.forEach(function (u) { if (canvasDrawn(u)) drawn++; });
      selfcheck.setAttribute("data-charts", String(charts.length));
      measureWidths();
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
