// The pages of an experiment's root (experiment/html_pages.cpp builds their data): a sweep, a
// search and a multi-target comparison. Uses report.js's helpers through `tb`; like it, sets every
// text with textContent.
(function (tb) {
  "use strict";
  var data = tb.data, el = tb.el, section = tb.section, table = tb.table, chart = tb.chart;
  var lineSeries = tb.lineSeries, pointSeries = tb.pointSeries, COLORS = tb.COLORS;
  var PALETTE = tb.PALETTE;
  var FIGURES = [["TTFT", "ttft"], ["TPOT", "tpot"], ["ITL", "itl"], ["E2EL", "e2el"]];

  // Under --sim-time the runs' figures, tables and overlays alike, are in model time.
  var model = Boolean((data.time || {}).model);
  function unit(u) { return model ? u + ", model time" : u; }
  function color(i) { return PALETTE[i % PALETTE.length]; }
  function subtitle(text) { document.getElementById("subtitle").textContent = text; }
  function defined(v) { return v !== null && v !== undefined && isFinite(v); }

  // The threshold of an SLO on `figure` ("p95_ttft_ms<=500" -> 500), or null.
  function threshold(slos, figure) {
    for (var i = 0; i < (slos || []).length; i++) {
      var m = /^\s*([a-z0-9_]+)\s*(<=|>=|<|>)\s*([-+0-9.eE]+)\s*$/.exec(slos[i]);
      if (m && m[1] === figure) return Number(m[3]);
    }
    return null;
  }

  // Writes each point's label beside it (the level or probe it stands for).
  function labelHook(xs, ys, labels) {
    return function (u) {
      var ctx = u.ctx, dpr = window.devicePixelRatio || 1;
      ctx.save();
      ctx.fillStyle = "#39424e";
      ctx.font = Math.round(11 * dpr) + "px sans-serif";
      var drawn = [];  // the boxes of labels drawn: one that would overlap them is left out
      for (var i = 0; i < xs.length; i++) {
        if (!defined(xs[i]) || !defined(ys[i])) continue;
        var x = u.valToPos(xs[i], "x", true) + 6 * dpr, y = u.valToPos(ys[i], "y", true) - 6 * dpr;
        var w = ctx.measureText(labels[i]).width, h = 12 * dpr;
        if (drawn.some(function (b) { return x < b[0] + b[2] && b[0] < x + w && y - h < b[1] && b[1] - h < y; })) continue;
        drawn.push([x, y, w]);
        ctx.fillText(labels[i], x, y);
      }
      ctx.restore();
    };
  }

  // Error bars of levels measured with --repeats (r.intervals: [lo, hi] by figure): a vertical
  // bar over the y figure's interval, a horizontal one over the x figure's.
  function errorBarHook(rows, xKey, yKey) {
    return function (u) {
      var ctx = u.ctx, dpr = window.devicePixelRatio || 1;
      ctx.save();
      ctx.beginPath();
      ctx.rect(u.bbox.left, u.bbox.top, u.bbox.width, u.bbox.height);
      ctx.clip();
      ctx.strokeStyle = "#39424e";
      ctx.lineWidth = dpr;
      rows.forEach(function (r) {
        var iv = r.intervals || {};
        if (!defined(r[xKey]) || !defined(r[yKey])) return;
        var x = u.valToPos(r[xKey], "x", true), y = u.valToPos(r[yKey], "y", true);
        ctx.beginPath();
        if (iv[yKey]) {
          var y0 = u.valToPos(iv[yKey][0], "y", true), y1 = u.valToPos(iv[yKey][1], "y", true);
          ctx.moveTo(x, y0); ctx.lineTo(x, y1);
          ctx.moveTo(x - 3 * dpr, y0); ctx.lineTo(x + 3 * dpr, y0);
          ctx.moveTo(x - 3 * dpr, y1); ctx.lineTo(x + 3 * dpr, y1);
        }
        if (iv[xKey]) {
          var x0 = u.valToPos(iv[xKey][0], "x", true), x1 = u.valToPos(iv[xKey][1], "x", true);
          ctx.moveTo(x0, y); ctx.lineTo(x1, y);
          ctx.moveTo(x0, y - 3 * dpr); ctx.lineTo(x0, y + 3 * dpr);
          ctx.moveTo(x1, y - 3 * dpr); ctx.lineTo(x1, y + 3 * dpr);
        }
        ctx.stroke();
      });
      ctx.restore();
    };
  }

  // y against x, one point per entry, joined in the entries' order (a sweep's levels in load
  // order: where throughput falls back as load grows, the curve bends back, as it should);
  // `marks` adds single highlighted points ({label, row, color, size}), `limit` an SLO line.
  function curve(parent, title, rows, xKey, yKey, xLabel, yLabel, labelOf, marks, limit, what) {
    var pts = rows.filter(function (r) { return defined(r[xKey]) && defined(r[yKey]); });
    if (!pts.length) {
      parent.appendChild(el("p", title + ": no level has both figures", "note"));
      return;
    }
    var xs = pts.map(function (r) { return r[xKey]; });
    var ys = pts.map(function (r) { return r[yKey]; });
    var series = [{}, lineSeries(what || "levels", COLORS.line, { points: { show: true, size: 6 } })];
    var cols = [xs, ys];
    (marks || []).forEach(function (m) {
      var chosen = m.rows || (m.row ? [m.row] : []);
      if (!chosen.length) return;
      series.push(pointSeries(m.label, m.color, m.size || 14));
      cols.push(pts.map(function (r) { return chosen.indexOf(r) >= 0 ? r[yKey] : null; }));
    });
    if (limit !== null && limit !== undefined) {
      series.push(lineSeries("SLO " + limit, COLORS.error, { dash: [6, 4], points: { show: false } }));
      cols.push(xs.map(function () { return limit; }));
    }
    // The x range is given: uPlot reads it from the first and last x otherwise, which holds only
    // for sorted data.
    // Both ranges hold the error bars of repeated levels too.
    var span = function (key, vals) {
      var all = vals.slice();
      pts.forEach(function (r) { if (r.intervals && r.intervals[key]) all.push(r.intervals[key][0], r.intervals[key][1]); });
      var a = Math.min.apply(null, all), b = Math.max.apply(null, all);
      var p = b > a ? (b - a) * 0.05 : Math.max(1, Math.abs(a) * 0.1);
      return [a - p, b + p];
    };
    var yRange = span(yKey, ys.concat(limit !== null && limit !== undefined ? [limit] : []));
    chart(parent, title, { scales: { x: { time: false, range: span(xKey, xs) }, y: { range: yRange } },
      axes: [{ label: xLabel }, { label: yLabel, size: 60 }], series: series,
      hooks: { draw: [labelHook(xs, ys, pts.map(labelOf)), errorBarHook(pts, xKey, yKey)] } }, cols,
      pts.some(function (r) { return r.intervals; }) ? "bars: each level's 95% interval over its --repeats runs" : undefined);
  }

  // Figures against the levels in their order (x: the level's index, labelled by its load).
  function againstLoad(parent, title, rows, keys, yLabel) {
    var idx = rows.map(function (r, i) { return i; });
    var series = [{}], cols = [idx];
    keys.forEach(function (k, i) {
      series.push(lineSeries(k[0], color(i), { points: { show: true } }));
      cols.push(rows.map(function (r) { return defined(r[k[1]]) ? r[k[1]] : null; }));
    });
    chart(parent, title, { scales: { x: { time: false } },
      axes: [{ label: "level (load)", splits: function () { return idx; },
        values: function (u, splits) { return splits.map(function (i) {
          return rows[i] ? rows[i].dir : ""; }); } }, { label: yLabel, size: 70 }],
      series: series }, cols);
  }

  // The CDFs of several runs on one chart (log x): the union of their x values, each run's
  // fraction <= x read from its own sampled CDF.
  function overlay(parent, name, runs) {
    var have = runs.filter(function (r) { return r.cdf && r.cdf.n; });
    if (!have.length) {
      parent.appendChild(el("p", name + ": no values", "note"));
      return;
    }
    var xs = [];
    have.forEach(function (r) { r.cdf.x.forEach(function (x) { if (x > 0) xs.push(x); }); });
    xs.sort(function (a, b) { return a - b; });
    xs = xs.filter(function (x, i) { return i === 0 || x !== xs[i - 1]; });
    var series = [{}], cols = [xs];
    have.forEach(function (r, i) {
      var j = -1, y = [];
      xs.forEach(function (x) {
        while (j + 1 < r.cdf.x.length && r.cdf.x[j + 1] <= x) j++;
        y.push(j < 0 ? 0 : r.cdf.y[j]);
      });
      series.push(lineSeries(r.label + " (" + r.cdf.n + ")", color(runs.indexOf(r)),
        { paths: uPlot.paths.stepped({ align: 1 }) }));
      cols.push(y);
    });
    chart(parent, name + " CDF by " + (data.kind === "compare" ? "target" : "level") +
      (model ? " (model time, log x)" : " (log x)"),
      { scales: { x: { time: false, distr: 3 }, y: { range: [0, 1] } },
        axes: [{ label: name + " (" + unit("ms") + ")" }, { label: "fraction ≤ x" }],
        series: series }, cols,
      "each curve drawn from at most 400 points of its run, evenly by rank");
  }

  tb.pages.sweep = function () {
    var levels = data.levels || [];
    subtitle("sweep of " + levels.length + " level" + (levels.length === 1 ? "" : "s") +
      (data.slo && data.slo.length ? " · SLO " + data.slo.join(", ") : ""));
    var knee = data.knee ? levels[data.knee.index] : null;
    var best = data.best ? levels[data.best.index] : null;

    var s = section("levels", "Levels");
    var said = [];
    said.push(knee ? "Knee: " + knee.dir + " (" + knee.label + "), where " + data.knee_rule + " stops holding."
      : "No knee: throughput kept growing faster than latency over the levels run.");
    if (data.slo && data.slo.length) {
      said.push(best ? "Best under the SLOs (" + data.slo.join(", ") + ") by " + data.best_by + ": " +
        best.dir + " (" + best.label + ")." : "No level meets every SLO (" + data.slo.join(", ") + ").");
    }
    if (data.stopped) said.push("Stopped early: " + data.stopped + ".");
    if (data.canceled) said.push("Interrupted: the levels after the last one shown were not run.");
    said.forEach(function (t) { s.appendChild(el("p", t)); });
    table(s, ["level", "load", "complete", "req/s", "out tok/s", "TTFT p50", "TTFT p95", "TTFT p99",
      "TPOT p95", "ITL p95", "E2EL p95", "errors", "goodput", "SLOs"], levels.map(function (l) {
      return [tb.link(l.dir, l.href), l.label, l.complete ? "yes" : "no", l.request_throughput,
        l.output_throughput, l.p50_ttft_ms, l.p95_ttft_ms, l.p99_ttft_ms, l.p95_tpot_ms,
        l.p95_itl_ms, l.p95_e2el_ms, defined(l.error_rate) ? (100 * l.error_rate).toFixed(1) + "%" : "",
        l.request_goodput, l.meets_slo === null || !(data.slo || []).length ? "" : (l.meets_slo ? "met" : "broken")];
    }), function (i) {
      var l = levels[i];
      return l === best ? "best" : l === knee ? "knee" : (l.meets_slo === false && (data.slo || []).length ? "broken" : "");
    });
    s.appendChild(el("p", (model ? "Model time (--sim-time): every time and rate below is the simulated model's. " : "") +
      "ms unless stated; each level's own page: its link. Rows: orange the knee, green the best under the SLOs.", "note"));

    s = section("curve", "Throughput against latency");
    var grid = el("div", null, "charts");
    s.appendChild(grid);
    // The knee's marker is larger, so that it shows around the best one when they coincide.
    var marks = [{ label: "knee", row: knee, color: COLORS.line2, size: 20 },
      { label: "best under SLO", row: best, color: COLORS.ok, size: 11 }];
    var labelOf = function (r) { return r.dir; };
    curve(grid, "TTFT p95 against request throughput", levels, "request_throughput", "p95_ttft_ms",
      "requests/s" + (model ? " (model time)" : ""), "TTFT p95 (" + unit("ms") + ")", labelOf, marks,
      threshold(data.slo, "p95_ttft_ms"));
    curve(grid, "TPOT p95 against request throughput", levels, "request_throughput", "p95_tpot_ms",
      "requests/s" + (model ? " (model time)" : ""), "TPOT p95 (" + unit("ms") + ")", labelOf, marks,
      threshold(data.slo, "p95_tpot_ms"));
    // The Pareto front: no level on it is beaten in both a user's decode rate and the GPUs' output.
    var front = levels.filter(function (l) { return l.pareto === true; });
    curve(grid, "Pareto front: a user's decode rate against output per GPU", levels,
      "output_tps_per_gpu", "median_decode_tps",
      "output tok/s per GPU (--gpus " + (data.gpus || 1) + ")" + (model ? " (model time)" : ""),
      "median decode tok/s per user", labelOf,
      [{ label: "Pareto front (" + front.length + ")", rows: front, color: COLORS.ok, size: 11 }]);
    againstLoad(grid, "Throughput by level" + (model ? " (model time)" : ""), levels,
      [["output tok/s", "output_throughput"], ["total tok/s", "total_token_throughput"]], "tokens/s");

    s = section("percentiles", "Percentiles against load");
    grid = el("div", null, "charts");
    s.appendChild(grid);
    FIGURES.forEach(function (f) {
      againstLoad(grid, f[0] + " percentiles by level (" + unit("ms") + ")", levels, ["mean", "p50", "p90", "p95", "p99"].map(function (p) {
        return [p, p + "_" + f[1] + "_ms"];
      }), f[0] + " (" + unit("ms") + ")");
    });

    s = section("overlays", "Distributions by level");
    grid = el("div", null, "charts");
    s.appendChild(grid);
    FIGURES.forEach(function (f) {
      overlay(grid, f[0], levels.map(function (l) { return { label: l.dir, cdf: (l.cdfs || {})[f[0]] }; }));
    });
    tb.configSection(data.config_yaml, "config.yaml of the sweep (secret headers redacted)");
  };

  // Several curves on one chart, one per group (a server configuration), each joined in its
  // rows' order; the x values are their union, a curve's gaps spanned.
  function curves(parent, title, groups, xKey, yKey, xLabel, yLabel) {
    var xs = [];
    groups.forEach(function (g) {
      g.rows.forEach(function (r) { if (defined(r[xKey]) && defined(r[yKey])) xs.push(r[xKey]); });
    });
    if (!xs.length) {
      parent.appendChild(el("p", title + ": no level has both figures", "note"));
      return;
    }
    xs.sort(function (a, b) { return a - b; });
    xs = xs.filter(function (x, i) { return i === 0 || x !== xs[i - 1]; });
    var series = [{}], cols = [xs];
    groups.forEach(function (g, i) {
      series.push(lineSeries(g.label, color(i), { spanGaps: true, points: { show: true, size: 6 } }));
      cols.push(xs.map(function (x) {
        var r = g.rows.filter(function (r) { return r[xKey] === x && defined(r[yKey]); })[0];
        return r ? r[yKey] : null;
      }));
    });
    chart(parent, title, { scales: { x: { time: false } },
      axes: [{ label: xLabel }, { label: yLabel, size: 60 }], series: series }, cols);
  }

  tb.pages.serve_sweep = function () {
    var configs = data.configurations || [], levels = data.levels || [];
    var slo = data.slo || [];
    subtitle("server-configuration sweep of " + configs.length + " configuration" +
      (configs.length === 1 ? "" : "s") + (slo.length ? " · SLO " + slo.join(", ") : ""));
    var best = data.best || null;
    var s = section("configurations", "Server configurations");
    if (best) {
      var bestConfig = configs.filter(function (c) { return c.dir === best.config; })[0];
      s.appendChild(el("p", "Best configuration" + (slo.length ? " under the SLOs (" + slo.join(", ") + ")" : "") +
        " by " + data.best_by + ": " + (bestConfig ? bestConfig.label || best.config : best.config) +
        " at " + best.level + "."));
    } else {
      s.appendChild(el("p", "No configuration has a level" + (slo.length ? " meeting every SLO." : " that completed.")));
    }
    if (data.canceled) s.appendChild(el("p", "Interrupted: the configurations after the last one shown were not run."));
    var bestOf = function (c) {
      return levels.filter(function (l) { return l.config === c.dir && l.level === c.best_level; })[0] || {};
    };
    table(s, ["configuration", "status", "ready (s)", "GPUs", "best level", "req/s", "out tok/s",
      "tok/s per GPU", "TTFT p95", "TPOT p95", "errors"], configs.map(function (c) {
      var b = bestOf(c);
      return [tb.link(c.label || c.dir, c.href), c.status, c.ready_s, c.gpus, c.best_level || "",
        b.request_throughput, b.output_throughput, b.output_tps_per_gpu, b.p95_ttft_ms, b.p95_tpot_ms,
        defined(b.error_rate) ? (100 * b.error_rate).toFixed(1) + "%" : ""];
    }), function (i) {
      var c = configs[i];
      return best && best.config === c.dir ? "best" : (c.status !== "complete" ? "broken" : "");
    });
    configs.forEach(function (c) {
      if (!c.error) return;
      var d = el("details");
      d.appendChild(el("summary", c.dir + ": " + c.status + ": " + c.error));
      d.appendChild(el("pre", c.log_tail || "(its log is empty)"));
      s.appendChild(d);
    });
    s.appendChild(el("p", (model ? "Model time (--sim-time). " : "") + "ms unless stated; each " +
      "configuration's own sweep: its link. Rows: green the best configuration, red one that " +
      "failed, never became ready or crashed (its log's end below the table).", "note"));

    s = section("curves", "Configurations overlaid");
    var grid = el("div", null, "charts");
    s.appendChild(grid);
    // A configuration's values alone ("64/2048"), to label points; `names` says what they are.
    var shortOf = {}, names = "";
    configs.forEach(function (c) {
      var parts = String(c.label || c.dir).split(", ");
      shortOf[c.dir] = parts.map(function (p) { return p.slice(p.indexOf("=") + 1); }).join("/");
      if (!names) names = parts.map(function (p) { return p.split("=")[0]; }).join("/");
    });
    var groups = configs.map(function (c) {
      return { label: c.label || c.dir, rows: levels.filter(function (l) { return l.config === c.dir; }) };
    }).filter(function (g) { return g.rows.length; });
    // The Pareto front across every configuration's levels.
    var front = levels.filter(function (l) { return l.pareto === true; });
    var pts = levels.filter(function (l) { return defined(l.output_tps_per_gpu) && defined(l.median_decode_tps); });
    var order = pts.slice().sort(function (a, b) { return a.output_tps_per_gpu - b.output_tps_per_gpu; });
    var xs = order.map(function (l) { return l.output_tps_per_gpu; });
    var series = [{}], cols = [xs];
    groups.forEach(function (g, i) {
      series.push(pointSeries(g.label, color(i), 7));
      cols.push(order.map(function (l) { return g.rows.indexOf(l) >= 0 ? l.median_decode_tps : null; }));
    });
    series.push(lineSeries("Pareto front (" + front.length + ")", COLORS.ok,
      { spanGaps: true, width: 2, points: { show: true, size: 13, fill: "transparent" } }));
    cols.push(order.map(function (l) { return l.pareto === true ? l.median_decode_tps : null; }));
    if (xs.length) {
      chart(grid, "Pareto front: a user's decode rate against output per GPU, every configuration", {
        scales: { x: { time: false } },
        axes: [{ label: "output tok/s per GPU" + (model ? " (model time)" : "") },
          { label: "median decode tok/s per user", size: 60 }],
        series: series,
        hooks: { draw: [labelHook(order.map(function (l) { return l.pareto === true ? l.output_tps_per_gpu : null; }),
          order.map(function (l) { return l.median_decode_tps; }),
          order.map(function (l) { return shortOf[l.config] + " " + l.level; }))] }
      }, cols, "ringed and labelled (" + names + " level): the front, where no other level is " +
        "better in both");
    }

    // Each configuration's figures against the load the sweep varied: concurrency, else the
    // request rate (x ascending for every configuration alike, so the curves overlay).
    var byConc = levels.some(function (l) { return defined(l.max_concurrency); });
    var loadKey = byConc ? "max_concurrency" : "request_rate";
    var loadLabel = byConc ? "max concurrency" : "request rate (req/s)";
    curves(grid, "Request throughput by load", groups, loadKey, "request_throughput", loadLabel,
      "requests/s" + (model ? " (model time)" : ""));
    curves(grid, "TTFT p95 by load", groups, loadKey, "p95_ttft_ms", loadLabel,
      "TTFT p95 (" + unit("ms") + ")");
    curves(grid, "TPOT p95 by load", groups, loadKey, "p95_tpot_ms", loadLabel,
      "TPOT p95 (" + unit("ms") + ")");
    s = section("levels", "Every level");
    table(s, ["configuration", "level", "load", "complete", "req/s", "out tok/s", "tok/s per GPU",
      "decode tok/s", "TTFT p95", "TPOT p95", "E2EL p95", "errors", "SLOs", "Pareto"], levels.map(function (l) {
      return [l.config, tb.link(l.level, l.href), l.label, l.complete ? "yes" : "no", l.request_throughput,
        l.output_throughput, l.output_tps_per_gpu, l.median_decode_tps, l.p95_ttft_ms, l.p95_tpot_ms,
        l.p95_e2el_ms, defined(l.error_rate) ? (100 * l.error_rate).toFixed(1) + "%" : "",
        l.meets_slo === null || !slo.length ? "" : (l.meets_slo ? "met" : "broken"), l.pareto ? "on the front" : ""];
    }), function (i) {
      var l = levels[i];
      return best && best.dir === l.dir ? "best" : (l.meets_slo === false && slo.length ? "broken" : "");
    });
    tb.configSection(data.config_yaml, "config.yaml of the sweep (secret headers redacted)");
  };

  tb.pages.search = function () {
    var probes = data.probes || [];
    var answer = data.answer || {};
    subtitle("search over " + (data.vary || "load") + " · SLO " + (data.slo || []).join(", "));
    var s = section("answer", "Answer");
    s.appendChild(el("p", answer.sentence || "no answer: the search did not finish"));
    var sloNames = [];
    probes.forEach(function (p) {
      (p.slo || []).forEach(function (v) { if (sloNames.indexOf(v.slo) < 0) sloNames.push(v.slo); });
    });
    table(s, ["probe", data.vary || "value", "repeat", "complete", "SLOs", "req/s"].concat(sloNames),
      probes.map(function (p) {
        return [tb.link(p.dir, p.href), p.value, p.repeat, p.complete ? "yes" : "no",
          p.met ? "met" : "broken", p.request_throughput].concat(sloNames.map(function (n) {
          var v = (p.slo || []).filter(function (x) { return x.slo === n; })[0];
          return v ? v.actual : null;
        }));
      }), function (i) {
        return probes[i].value === answer.value ? "best" : (probes[i].met ? "" : "broken");
      });
    s.appendChild(el("p", "in the order probed; green: the answer; each probe's own page: its link", "note"));

    s = section("probes", "Probes");
    var grid = el("div", null, "charts");
    s.appendChild(grid);
    var rows = probes.map(function (p) {
      var r = { value: p.value, request_throughput: p.request_throughput, dir: p.dir, met: p.met };
      (p.slo || []).forEach(function (v) { r[v.slo] = v.actual; });
      return r;
    });
    rows.sort(function (a, b) { return a.value - b.value; });  // probed out of order: drawn by value
    var at = rows.filter(function (r) { return r.value === answer.value && r.met; })[0];
    var labelOf = function (r) { return r.met ? "met" : "broken"; };
    curve(grid, "Request throughput against " + (data.vary || "the value varied"), rows, "value",
      "request_throughput", data.vary || "value", "requests/s", labelOf,
      [{ label: "answer", row: at, color: COLORS.ok }], null, "probes");
    sloNames.forEach(function (n) {
      var m = /^\s*([a-z0-9_]+)/.exec(n);
      curve(grid, n + " against " + (data.vary || "the value varied"), rows, "value", n,
        data.vary || "value", m ? m[1] : n, labelOf, [{ label: "answer", row: at, color: COLORS.ok }],
        threshold([n], m ? m[1] : ""), "probes");
    });
    tb.configSection(data.config_yaml, "config.yaml of the search (secret headers redacted)");
  };

  tb.pages.compare = function () {
    var targets = data.targets || [];
    subtitle("comparison of " + targets.length + " targets");
    var s = section("ranking", "Ranking");
    var keys = [];
    targets.forEach(function (t) {
      Object.keys(t.figures || {}).forEach(function (k) { if (keys.indexOf(k) < 0) keys.push(k); });
    });
    table(s, ["rank", "target", "score", "eliminated"].concat(keys), targets.map(function (t) {
      return [t.rank === null ? "-" : t.rank, tb.link(t.name, t.href), t.score,
        t.eliminated ? (t.reason || "yes") : ""].concat(keys.map(function (k) { return t.figures[k]; }));
    }), function (i) { return targets[i].rank === 1 ? "best" : (targets[i].eliminated ? "broken" : ""); });
    var w = data.weights || {};
    s.appendChild(el("p", "score: " + (data.score_rule || "") + "; weights " + Object.keys(w).map(function (k) {
      return k + "=" + w[k];
    }).join(", ") + ((data.require || []).length ? "; required: " + data.require.join(", ") : ""), "note"));

    s = section("overlays", "Distributions by target");
    var grid = el("div", null, "charts");
    s.appendChild(grid);
    FIGURES.forEach(function (f) {
      overlay(grid, f[0], targets.map(function (t) { return { label: t.name, cdf: (t.cdfs || {})[f[0]] }; }));
    });
    tb.configSection(data.config_yaml, "config.yaml of the comparison (secret headers redacted)");
  };
})(tb);
