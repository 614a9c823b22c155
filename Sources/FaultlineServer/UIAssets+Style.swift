extension UIAssets {
    /// `/ui/app.css`. Two columns from 1000 px up (flows and lanes; detail and panels), one below;
    /// below 760 px the flow list keeps the columns that tell flows apart (the detail has the rest).
    static let styleSheet = #"""
*{box-sizing:border-box}
body{margin:0;font:13px/1.4 system-ui,sans-serif;color:#1d2330;background:#f5f6f8}
header{display:flex;flex-wrap:wrap;gap:4px 14px;align-items:baseline;padding:8px 14px;background:#1d2330;color:#fff}
header h1{font-size:16px;margin:0}
header .status{color:#9fd3a8}header .status.down{color:#f3a3a3}
.warning{background:#8a4b00;color:#fff;padding:1px 8px;border-radius:3px}
main{display:grid;grid-template-columns:minmax(0,1fr) 380px;gap:10px;padding:10px;height:calc(100vh - 38px)}
#flows-panel{display:flex;flex-direction:column;min-height:0;min-width:0}
aside{overflow-y:auto;min-height:0;min-width:0}
section>h2{font-size:13px;text-transform:uppercase;letter-spacing:.05em;color:#5a6275;margin:10px 0 4px}
aside section{background:#fff;border:1px solid #dde1e8;border-radius:6px;padding:2px 10px 8px;margin-bottom:10px}
#filters{display:flex;flex-wrap:wrap;gap:6px 10px;margin-bottom:6px}
#filters label{white-space:nowrap}
#filters input,#filters select{font:inherit;padding:2px 4px;width:110px}
.scroll{flex:1;overflow:auto;background:#fff;border:1px solid #dde1e8;border-radius:6px;min-height:120px}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:3px 6px;border-bottom:1px solid #eef0f4;white-space:nowrap;vertical-align:top}
th{position:sticky;top:0;background:#eef0f4;font-weight:600}
#flows td.url{width:100%;max-width:0}
.url-text{display:flex;min-width:0}
.url-text .path{order:1;flex:0 1 auto;min-width:2em;overflow:hidden;text-overflow:ellipsis}
.url-text .origin{order:2;flex:1 1 0;min-width:0;overflow:hidden;text-overflow:ellipsis;color:#8a91a0;padding-left:6px}
.copy-of{display:block;width:fit-content;max-width:100%;overflow:hidden;text-overflow:ellipsis;padding:0 5px;border-radius:3px;background:#e6e0f5;color:#4b2a8a;font-size:12px}
#flows td.size,#flows td.time,#flows td.id{text-align:right;font-variant-numeric:tabular-nums}
#flows td.type{color:#5a6275}
#flows td.rules{white-space:normal;min-width:9em;max-width:14em}
#flows td.hold{white-space:normal;min-width:7em;max-width:11em}
.rule-name>span{white-space:nowrap}
#flows tbody tr{cursor:pointer}
#flows tbody tr:hover{background:#f0f4ff}
#flows tbody tr.selected{background:#dce6ff}
.s2{color:#1e6b34}.s3{color:#2b5aa6}.s4{color:#a35a00}.s5,.error{color:#b00020}
.hold-held{color:#fff;background:#b35c00;padding:0 5px;border-radius:3px}
#flows td.rules{color:#5a2ca0}
.empty{color:#8a91a0}
#holds{list-style:none;padding:0;margin:0}
#holds li{padding:4px 0;border-bottom:1px solid #eef0f4;overflow-wrap:anywhere}
#holds button,#rules button{font:inherit;margin-right:4px}
#holds input{width:64px;font:inherit}
#rules th{position:static;font-size:12px}
#rules td.hits,#rules th.hits{text-align:right;font-variant-numeric:tabular-nums}
#rules td.id{white-space:normal;overflow-wrap:anywhere}
#rules tr.scenario td{background:#f5f6f8;border-top:1px solid #dde1e8}
#rules tr.scenario td.id{font-weight:600}
#rules tr.rule td.id{padding-left:18px}
#rules tr.disabled td.id,#rules tr.disabled td.phase{color:#8a91a0}
#rules td.enabled{font-weight:600}
#rules tr.disabled td.enabled{color:#a35a00}
.said{margin:4px 0 0;color:#1e6b34;font-size:12px;min-height:1em}
#states,#marks{padding-left:16px;margin:0;overflow-wrap:anywhere}
#detail{overflow-wrap:anywhere}
#detail h3{font-size:12px;margin:8px 0 2px}
#detail table td{white-space:normal;font-family:ui-monospace,monospace;font-size:12px}
#detail table.headers td{word-break:break-all}
#detail table.headers td:first-child{word-break:normal;white-space:nowrap;width:1%}
#detail table.events td.seq,#detail table.events td.name{white-space:nowrap;overflow-wrap:normal}
#detail table.events td.summary{overflow-wrap:anywhere;width:100%}
#detail tr.event.witness td{background:#fdecee}
#detail tr.event.offending td{background:#f8c9cf}
#detail pre{white-space:pre-wrap;word-break:break-all;max-height:220px;overflow:auto;background:#f5f6f8;padding:6px;margin:0}
.note{margin:4px 0;color:#4b2a8a}
.violation{border:1px solid #e3a1aa;background:#fff6f7;border-radius:5px;padding:2px 8px 6px;margin:6px 0}
.violation h3{color:#b00020;display:flex;justify-content:space-between;align-items:center}
.violation .close{font:inherit;border:0;background:none;cursor:pointer;color:#5a6275}
.violation ol{margin:4px 0;padding-left:20px;font-size:12px}
.violation li.offending{font-weight:600}
#lanes-panel{background:#fff;border:1px solid #dde1e8;border-radius:6px;padding:2px 10px 8px;margin-top:10px;max-height:40vh;overflow:auto;flex:none}
#lanes svg{display:block}
#lanes .lane-bg{fill:#fff}#lanes .lane-bg.odd{fill:#f7f8fa}
#lanes .lane-label{font:600 12px ui-monospace,monospace;fill:#1d2330}
#lanes .lane-account{font:11px system-ui,sans-serif;fill:#5a6275}
#lanes .axis .baseline{stroke:#8a91a0}
#lanes .axis .grid{stroke:#eef0f4}
#lanes .axis .tick{font:10px system-ui,sans-serif;fill:#5a6275}
#lanes .axis .zigzag{fill:none;stroke:#5a6275;stroke-width:1.2}
#lanes .axis .break-label{font:10px system-ui,sans-serif;fill:#8a4b00}
#lanes .break-band{fill:#fff;fill-opacity:.82;stroke:#c9ced8;stroke-dasharray:2 2}
#lanes .bar{stroke:#fff;stroke-width:.5;cursor:pointer}
#lanes .bar.login,.swatch.login{fill:#2b7a4b;background:#2b7a4b}
#lanes .bar.refresh,.swatch.refresh{fill:#2b5aa6;background:#2b5aa6}
#lanes .bar.logout,.swatch.logout{fill:#6b2ca0;background:#6b2ca0}
#lanes .bar.business,.swatch.business{fill:#8a91a0;background:#8a91a0}
#lanes .bar.other,.swatch.other{fill:#1f8a8a;background:#1f8a8a}
#lanes .bar.failed,.swatch.failed{fill:#b00020;background:#b00020}
#lanes .bar.copy{fill-opacity:.45;stroke:#4b2a8a;stroke-width:1.2;stroke-dasharray:3 2}
#lanes .held{fill:url(#held-hatch);pointer-events:none}
#lanes .hatch{fill:#fff;fill-opacity:.7}
#lanes .logout-line{stroke:#6b2ca0;stroke-width:2;stroke-dasharray:4 3}
#lanes .refresh-mark{fill:#2b5aa6}
#lanes .violation-marker path{fill:#b00020}
#lanes .violation-marker line{stroke:#b00020;stroke-width:1.5}
#lanes .violation-marker.selected path{stroke:#1d2330;stroke-width:1.5}
#lanes-legend{list-style:none;display:flex;flex-wrap:wrap;gap:2px 12px;padding:0;margin:6px 0 0;font-size:12px;color:#5a6275}
#lanes-legend li{display:flex;align-items:center;gap:4px;white-space:nowrap}
.swatch{display:inline-block;width:16px;height:9px;border-radius:1px}
.swatch.copy{background:#e6e0f5;border:1px dashed #4b2a8a}
.swatch.held{background:repeating-linear-gradient(45deg,#8a91a0 0 3px,#e3e5ea 3px 5px)}
.swatch.logout-line{height:12px;width:0;border-left:2px dashed #6b2ca0;margin:0 7px}
.swatch.refresh-mark{width:7px;height:7px;border-radius:50%;background:#2b5aa6;margin:0 4px}
.swatch.violation{width:12px;background:#b00020;clip-path:polygon(0 0,100% 0,50% 100%)}
.swatch.axis-break{width:14px;height:9px;border:1px dashed #c9ced8;background:#fff}
#check-form{margin-top:6px;font-size:12px;color:#5a6275}
#check-form label{display:block;overflow-wrap:anywhere}
#check-form input{display:block;margin-top:2px;max-width:100%;font:inherit}
#check-summary{margin:4px 0 0}
#check-summary.error{color:#b00020}
@media (max-width:1000px){
  main{grid-template-columns:minmax(0,1fr);height:auto}
  .scroll{flex:none;max-height:60vh}
  aside{overflow:visible}
}
@media (max-width:760px){
  #flows .wide{display:none}
  #flows th,#flows td{padding:3px 4px}
  #flows td.hold{min-width:5.5em}
  #filters input,#filters select{width:96px}
}
"""#
}
