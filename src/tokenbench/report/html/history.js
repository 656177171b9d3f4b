// The page of `tokenbench history trend FIGURE --html` (history/trend_page.cpp builds its data):
// the figure's runs over time with their intervals, the change points and the environment's
// changes marked, and the table of runs. Uses report.js's helpers through `tb`; like it, sets
// every text with textContent.
(function (tb) {
  "use strict";
  var data = tb.data, el = tb.el, section = tb.section, table = tb.table, chart = tb.chart;
  var lineSeries = tb.lineSeries, pointSeries = tb.pointSeries, COLORS = tb.COLORS;
  function defined(v) { return v !== null && v !== undefined && isFinite(v); }
  function when(iso) { return String(iso || "").slice(0, 19).replace("T", " "); }
  function changes(list) {
    return (list || []).map(function (c) {
      return c.key + ": " + (c.before || "(none)") + " -> " + (c.after || "(none)");
    }).join("; ");
  }

  // Vertical dashed lines at the change points, and each point's interval as a bar.
  function marksHook(points, cps) {
    return function (u) {
      var ctx = u.ctx, dpr = window.devicePixelRatio || 1;
      ctx.save();
      ctx.lineWidth = dpr;
      ctx.strokeStyle = COLORS.line;
      points.forEach(function (p, i) {
        if (!defined(p.lo) || !defined(p.hi)) return;
        var x = u.valToPos(i, "x", true);
        var y0 = u.valToPos(p.lo, "y", true), y1 = u.valToPos(p.hi, "y", true);
        ctx.beginPath();
        ctx.moveTo(x, y0); ctx.lineTo(x, y1);
        ctx.moveTo(x - 3 * dpr, y0); ctx.lineTo(x + 3 * dpr, y0);
        ctx.moveTo(x - 3 * dpr, y1); ctx.lineTo(x + 3 * dpr, y1);
        ctx.stroke();
      });
      ctx.setLineDash([6 * dpr, 4 * dpr]);
      cps.forEach(function (c) {
        ctx.strokeStyle = c.worse ? COLORS.error : COLORS.line3;
        var x = u.valToPos(c.index - 0.5, "x", true);
        ctx.beginPath();
        ctx.moveTo(x, u.bbox.top); ctx.lineTo(x, u.bbox.top + u.bbox.height);
        ctx.stroke();
      });
      ctx.restore();
    };
  }

  tb.pages.trend = function () {
    var pts = data.points || [], cps = data.change_points || [];
    document.getElementById("subtitle").textContent = "History of " + data.figure + " (" +
      (data.direction === "higher_is_better" ? "higher" : "lower") + " is better): workload " +
      data.identity + ", model " + data.model + " at " + data.base_url + ", " + pts.length + " runs";
    var s = section("trend", "Trend of " + data.figure);
    if (!pts.length) {
      s.appendChild(el("p", "No run of this workload has the figure.", "note"));
      return;
    }
    var idx = pts.map(function (p, i) { return i; });
    var values = pts.map(function (p) { return p.value; });
    var envIdx = pts.map(function (p) { return p.environment_changed.length ? p.value : null; });
    var segMeans = pts.map(function () { return null; });
    var bounds = [0].concat(cps.map(function (c) { return c.index; })).concat([pts.length]);
    for (var b = 0; b + 1 < bounds.length; b++) {
      var sum = 0;
      for (var i = bounds[b]; i < bounds[b + 1]; i++) sum += values[i];
      for (i = bounds[b]; i < bounds[b + 1]; i++) segMeans[i] = sum / (bounds[b + 1] - bounds[b]);
    }
    var all = values.slice();
    pts.forEach(function (p) { if (defined(p.lo)) all.push(p.lo, p.hi); });
    var lo = Math.min.apply(null, all), hi = Math.max.apply(null, all);
    var pad = hi > lo ? (hi - lo) * 0.08 : Math.max(1, Math.abs(lo) * 0.1);
    chart(s, data.figure + " by run", {
      width: 900,
      scales: { x: { time: false, range: [-0.5, pts.length - 0.5] }, y: { range: [lo - pad, hi + pad] } },
      axes: [{ label: "run id (oldest first)", values: function (u, splits) {
        return splits.map(function (i) { return pts[i] && i === Math.round(i) ? String(pts[i].ids[0]) : ""; });
      } }, { label: data.figure, size: 70 }],
      series: [{}, lineSeries(data.figure, COLORS.line, { points: { show: true, size: 6 } }),
        lineSeries("segment mean", COLORS.line2, { dash: [2, 3], points: { show: false } }),
        pointSeries("environment changed", COLORS.line3, 12)],
      hooks: { draw: [marksHook(pts, cps)] }
    }, [idx, values, segMeans, envIdx],
      "dashed verticals: change points (red: worse); bars: 95% interval over a run's --repeats");

    var c = section("changes", "Change points");
    c.appendChild(el("p", "E-Divisive means, significance " + data.method.significance + ", " +
      data.method.permutations + " permutations, segments of " + data.method.min_segment + " or more.", "note"));
    table(c, ["first run after", "started (UTC)", "mean before", "mean after", "change", "p", "environment changed there"],
      cps.map(function (cp) {
        return [String(cp.id), when(cp.started_at), tb.fmt(cp.mean_before), tb.fmt(cp.mean_after),
          (100 * (cp.mean_after / cp.mean_before - 1)).toFixed(1) + " % (" + (cp.worse ? "worse" : "better") + ")",
          tb.fmt(cp.p_value), changes(cp.environment_changed) || "nothing"];
      }));
    if (!cps.length) c.appendChild(el("p", "No change point.", "note"));
    if (data.latest_worse) c.appendChild(el("p", "The latest run lies in a worse segment than the one before.", "bad"));

    var r = section("runs", "Runs");
    table(r, ["id", "started (UTC)", data.figure, "95% interval", "environment changed", "results"],
      pts.map(function (p) {
        return [p.ids.join(", "), when(p.started_at), tb.fmt(p.value),
          defined(p.lo) ? tb.fmt(p.lo) + " to " + tb.fmt(p.hi) : "", changes(p.environment_changed), p.dir];
      }));
  };
})(tb);
