"""The report's one HTML template: inline CSS, no script, nothing loaded from elsewhere."""

from __future__ import annotations

__all__ = ["TEMPLATE"]

TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy"
 content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>{{ title }}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto;
       max-width: 1100px; padding: 0 1rem; color: #1d1d1f; line-height: 1.4; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.25rem; border-bottom: 1px solid #ddd; padding-bottom: 0.2rem; margin-top: 2rem; }
h3 { font-size: 1rem; margin: 0.8rem 0 0.3rem; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.9rem; }
th, td { border: 1px solid #ddd; padding: 0.25rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #f4f4f6; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.facts td:first-child { color: #555; }
.figures { display: flex; flex-wrap: wrap; gap: 1rem; }
figure { margin: 0; border: 1px solid #eee; padding: 0.4rem; break-inside: avoid; }
figure svg { display: block; width: 460px; height: auto; }
figcaption { font-size: 0.85rem; color: #444; text-align: center; }
.notes li { color: #8a5a00; }
code { font-size: 0.85rem; word-break: break-all; }
@media print { body { margin: 0; max-width: none; } h2 { break-after: avoid; }
               figure svg { width: 320px; } }
</style>
</head>
<body>
<header>
<h1>{{ title }}</h1>
<table class="facts">
{% for name, value in facts %}<tr><td>{{ name }}</td><td>{{ value }}</td></tr>
{% endfor %}</table>
</header>
<section id="summary">
<h2>Summary</h2>
<table class="summary">
<tr>{% for h in headers %}<th>{{ h }}</th>{% endfor %}</tr>
{% for row in summary %}<tr><td>{{ row[0] }}</td>
{% for cell in row[1:-1] %}<td class="num">{{ cell }}</td>{% endfor %}
<td><code>{{ row[-1] }}</code></td></tr>
{% endfor %}</table>
{% for text in intervals %}<p class="intervals">{{ text }}</p>
{% endfor %}{% if notes %}<h3>Notes</h3><ul class="notes">
{% for note in notes %}<li>{{ note }}</li>
{% endfor %}</ul>{% endif %}
</section>
{% for section in sections %}
<section class="task">
<h2>{{ section.title }}</h2>
{% if section.figures %}<div class="figures">
{% for caption, svg in section.figures %}<figure class="figure">{{ svg | safe }}
<figcaption>{{ caption }}</figcaption></figure>
{% endfor %}</div>{% endif %}
{% for table in section.tables %}<h3>{{ table.caption }}</h3>
<table><tr>{% for h in table.headers %}<th>{{ h }}</th>{% endfor %}</tr>
{% for row in table.rows %}<tr>{% for cell in row %}<td>{{ cell }}</td>{% endfor %}</tr>
{% endfor %}</table>
{% endfor %}
{% for text in section.text %}<p>{{ text }}</p>
{% endfor %}
</section>
{% endfor %}
<footer><p style="color:#777;font-size:0.8rem">Written by scorekit {{ facts[0][1] }}.
Self-contained: no script, font or image is loaded from anywhere.</p></footer>
</body>
</html>
"""
