extension UIAssets {
    /// `/ui/app.css`.
    static let styleSheet = #"""
*{box-sizing:border-box}
body{margin:0;font:13px/1.4 system-ui,sans-serif;color:#1d2330;background:#f5f6f8}
header{display:flex;gap:14px;align-items:baseline;padding:8px 14px;background:#1d2330;color:#fff}
header h1{font-size:16px;margin:0}
.status{color:#9fd3a8}.status.down{color:#f3a3a3}
.warning{background:#8a4b00;color:#fff;padding:1px 8px;border-radius:3px}
main{display:grid;grid-template-columns:minmax(0,1fr) 420px;gap:10px;padding:10px;height:calc(100vh - 38px)}
#flows-panel{display:flex;flex-direction:column;min-height:0}
aside{overflow-y:auto;min-height:0}
section>h2{font-size:13px;text-transform:uppercase;letter-spacing:.05em;color:#5a6275;margin:10px 0 4px}
aside section{background:#fff;border:1px solid #dde1e8;border-radius:6px;padding:2px 10px 8px;margin-bottom:10px}
#filters{display:flex;flex-wrap:wrap;gap:8px;margin-bottom:6px}
#filters input,#filters select{font:inherit;padding:2px 4px;width:120px}
.scroll{flex:1;overflow:auto;background:#fff;border:1px solid #dde1e8;border-radius:6px;min-height:120px}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:3px 6px;border-bottom:1px solid #eef0f4;white-space:nowrap}
th{position:sticky;top:0;background:#eef0f4;font-weight:600}
#flows td.url{max-width:300px;overflow:hidden;text-overflow:ellipsis}
#flows td.rules{max-width:180px;overflow:hidden;text-overflow:ellipsis}
#flows tbody tr{cursor:pointer}
#flows tbody tr:hover{background:#f0f4ff}
#flows tbody tr.selected{background:#dce6ff}
.s2{color:#1e6b34}.s3{color:#2b5aa6}.s4{color:#a35a00}.s5,.error{color:#b00020}
.hold-held{color:#fff;background:#b35c00;padding:0 5px;border-radius:3px}
.rules{color:#5a2ca0}
.empty{color:#8a91a0}
#holds{list-style:none;padding:0;margin:0}
#holds li{padding:4px 0;border-bottom:1px solid #eef0f4}
#holds button,#rules button{font:inherit;margin-right:4px}
#holds input{width:64px;font:inherit}
#rules td.hits{text-align:right;font-variant-numeric:tabular-nums}
#rules td.id{white-space:normal;word-break:break-word}
#rules tr.disabled td.id{color:#8a91a0;text-decoration:line-through}
#states,#marks{padding-left:16px;margin:0}
#detail h3{font-size:12px;margin:8px 0 2px}
#detail table td{white-space:normal;word-break:break-all;font-family:ui-monospace,monospace;font-size:12px}
#detail pre{white-space:pre-wrap;word-break:break-all;max-height:220px;overflow:auto;background:#f5f6f8;padding:6px;margin:0}
#lanes-panel{background:#fff;border:1px solid #dde1e8;border-radius:6px;padding:2px 10px 8px;margin-top:10px;max-height:34vh;overflow:auto}
#lanes svg{display:block}
#lanes .lane-label{font:12px ui-monospace,monospace;fill:#1d2330}
#lanes .bar{stroke:#fff;stroke-width:.5}
#lanes .bar.login{fill:#2b7a4b}#lanes .bar.refresh{fill:#2b5aa6}#lanes .bar.logout{fill:#6b2ca0}#lanes .bar.other{fill:#8a91a0}
#lanes .bar.failed{fill:#b00020}
#lanes .logout-line{stroke:#6b2ca0;stroke-width:2;stroke-dasharray:4 3}
#lanes .refresh-mark{fill:#2b5aa6}
"""#
}
