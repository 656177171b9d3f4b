#!/usr/bin/env python3
"""How the chart library was chosen: the same 13 charts as a run's report.html (a 20,000-request
timeline of 5 series, 4 CDFs of 2,000 points, 4 histograms, 4 series over time) drawn by uPlot,
Chart.js and ECharts in headless Chromium; prints each page's time from its first script to the
second animation frame after the charts were built, median of 3. Fetches the two other libraries
with `npm pack` (pinned versions) into a temporary folder; run from the repository root:
    python3 bench/report/chart_libraries.py
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile

UPLOT = "third_party/npm/node_modules/uplot/dist/"


def page(lib, libjs, css, path):
    import json
    import random
    random.seed(1)
    N=20000
    idx=list(range(N))
    tl=[[i*0.18+random.random()*0.01 for i in idx] for _ in range(4)]
    cdf=[[sorted(random.lognormvariate(3,0.5) for _ in range(2000)), [ (k+1)/2000 for k in range(2000)]] for _ in range(4)]
    hist=[[list(range(60)), [random.randint(0,500) for _ in range(60)]] for _ in range(4)]
    ts=[[list(range(2000)), [random.random()*100 for _ in range(2000)]] for _ in range(4)]
    data={"idx":idx,"tl":tl,"cdf":cdf,"hist":hist,"ts":ts}
    draw={
    "uplot":'''
    function mk(xs, ys, pts){ var d=document.createElement("div"); document.body.appendChild(d);
     var series=[{}]; ys.forEach(function(){ series.push(pts?{stroke:"#1d4e89",width:0,paths:function(){return null},points:{show:true,size:2}}:{stroke:"#1d4e89",width:1.5}); });
     new uPlot({width:620,height:260,scales:{x:{time:false}},series:series},[xs].concat(ys),d); }
    mk(D.idx, D.tl, true);
    D.cdf.forEach(function(c){mk(c[0],[c[1]])}); D.hist.forEach(function(c){mk(c[0],[c[1]])}); D.ts.forEach(function(c){mk(c[0],[c[1]])});
    ''',
    "chartjs":'''
    function mk(xs, ys, pts){ var c=document.createElement("canvas"); c.width=620;c.height=260; var w=document.createElement("div"); w.style.width="620px"; w.style.height="260px"; w.appendChild(c); document.body.appendChild(w);
     new Chart(c,{type:pts?"scatter":"line",data:{datasets:ys.map(function(y){return {data:xs.map(function(x,i){return {x:x,y:y[i]}}),pointRadius:pts?1:0,borderWidth:pts?0:1.5,parsing:false}})},options:{animation:false,responsive:false,parsing:false,normalized:true,scales:{x:{type:"linear"}}}}); }
    mk(D.idx, D.tl, true);
    D.cdf.forEach(function(c){mk(c[0],[c[1]])}); D.hist.forEach(function(c){mk(c[0],[c[1]])}); D.ts.forEach(function(c){mk(c[0],[c[1]])});
    ''',
    "echarts":'''
    function mk(xs, ys, pts){ var d=document.createElement("div"); d.style.width="620px"; d.style.height="260px"; document.body.appendChild(d);
     var ch=echarts.init(d,null,{renderer:"canvas"}); ch.setOption({animation:false,xAxis:{type:"value"},yAxis:{type:"value"},series:ys.map(function(y){return {type:pts?"scatter":"line",symbolSize:2,showSymbol:pts,data:xs.map(function(x,i){return [x,y[i]]})}})}); }
    mk(D.idx, D.tl, true);
    D.cdf.forEach(function(c){mk(c[0],[c[1]])}); D.hist.forEach(function(c){mk(c[0],[c[1]])}); D.ts.forEach(function(c){mk(c[0],[c[1]])});
    '''}[lib]
    html=f'''<!DOCTYPE html><html><head><meta charset="utf-8"><style>{css}</style></head><body>
    <div id="r" data-ms=""></div>
    <script type="application/json" id="d">{json.dumps(data)}</script>
    <script>var T0=performance.now();</script>
    <script>{libjs}</script>
    <script>var D=JSON.parse(document.getElementById("d").textContent);
    {draw}
    requestAnimationFrame(function(){{requestAnimationFrame(function(){{document.getElementById("r").setAttribute("data-ms", String(Math.round(performance.now()-T0)));}});}});
    </script></body></html>'''
    with open(path, "w") as f:
        f.write(html)


def draw_ms(path):
    with tempfile.TemporaryDirectory() as profile:
        try:
            dom = subprocess.run(["chromium", "--headless=new", "--disable-gpu", "--no-sandbox",
                                  "--user-data-dir=" + profile, "--virtual-time-budget=20000",
                                  "--dump-dom", "file://" + os.path.abspath(path)],
                                 capture_output=True, text=True, timeout=60).stdout
        except subprocess.TimeoutExpired:
            return None
    m = re.search(r'data-ms="(\d+)"', dom)
    return int(m.group(1)) if m else None


def main():
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["npm", "pack", "chart.js@4.4.7", "echarts@5.5.1", "--silent",
                        "--pack-destination", d], check=True, stdout=subprocess.DEVNULL)
        for t in ("chart.js-4.4.7.tgz", "echarts-5.5.1.tgz"):
            os.makedirs(os.path.join(d, t[:-4]))
            subprocess.run(["tar", "xzf", os.path.join(d, t), "-C", os.path.join(d, t[:-4])],
                           check=True)
        libs = {
            "uplot": (UPLOT + "uPlot.iife.min.js", UPLOT + "uPlot.min.css"),
            "chartjs": (os.path.join(d, "chart.js-4.4.7/package/dist/chart.umd.js"), None),
            "echarts": (os.path.join(d, "echarts-5.5.1/package/dist/echarts.min.js"), None),
        }
        for lib, (js, css) in libs.items():
            path = os.path.join(d, "page-" + lib + ".html")
            page(lib, open(js).read(), open(css).read() if css else "", path)
            runs = [draw_ms(path) for _ in range(3)]
            done = [r for r in runs if r is not None]
            print(f"{lib:8} library {os.path.getsize(js) / 1e3:6.0f} KB  "
                  + (f"{statistics.median(done)} ms (median of {len(done)})" if done
                     else "did not finish within 60 s"))


if __name__ == "__main__":
    main()
