/**
 * The page's own script, run in the browser after Leaflet and uPlot: the map and the chart from
 * the JSON data block. Plain ES2017 in a string, as the project compiles for Node, not for the DOM.
 *
 * Invariants the system test relies on: each output geometry is one Leaflet layer in the overlay
 * pane (points are circle markers, never image icons, which would be loaded by URL), drawn with
 * class `gb-feature`; the outlines live in a pane of their own below it; when both are drawn the
 * root element gets `data-report-ready`.
 */
export const PAGE_SCRIPT = `(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('gb-data').textContent);
  var root = document.documentElement;
  drawMap(data.map);
  drawChart(data.timeline);
  root.setAttribute('data-report-ready', 'true');

  function drawMap(m) {
    var map = L.map('gb-map', { zoomSnap: 0.25, attributionControl: true, worldCopyJump: false });
    map.attributionControl.setPrefix('Leaflet');
    map.createPane('gb-base').style.zIndex = '350';
    L.geoJSON(m.outlines, {
      pane: 'gb-base',
      interactive: false,
      attribution: m.attribution,
      style: function (f) {
        return f.properties.kind === 'country'
          ? { color: '#6b7280', weight: 1.5, fillColor: '#f7f5ef', fillOpacity: 1 }
          : { color: '#a8a29e', weight: 0.8, fill: false };
      }
    }).addTo(map);
    var features = L.geoJSON(m.features, {
      pointToLayer: function (f, latlng) {
        return L.circleMarker(latlng, { radius: f.properties.s === 'ok' ? 4 : 6 });
      },
      style: function (f) {
        var ok = f.properties.s === 'ok';
        return {
          className: 'gb-feature gb-' + (ok ? 'ok' : 'failed'),
          color: ok ? '#1d4ed8' : '#991b1b',
          weight: ok ? 1 : 2,
          fillColor: ok ? '#3b82f6' : '#ef4444',
          fillOpacity: ok ? 0.45 : 0.85
        };
      },
      onEachFeature: function (f, layer) { layer.bindPopup(popup(f.properties)); }
    }).addTo(map);
    var points = [];
    collect(features, points);
    var all = features.getBounds();
    if (!all.isValid()) map.fitBounds(m.fallback);
    else {
      map.fitBounds(coreBounds(points) || all, { padding: [24, 24], maxZoom: 13 });
      outsideNote(map, points, all);
    }
    root.setAttribute('data-map-layers', String(points.length));
  }

  /** One representative position per drawn layer, with its status (members of a multi-geometry share their feature's). */
  function collect(group, into, feature) {
    group.eachLayer(function (layer) {
      var f = layer.feature || feature;
      if (layer.eachLayer) { collect(layer, into, f); return; }
      var at = layer.getLatLng ? layer.getLatLng() : layer.getBounds().getCenter();
      into.push({ at: at, failed: f.properties.s !== 'ok' });
    });
  }

  /**
   * The view leaves out the outermost 1% on each side (from 100 shapes on): one point with swapped
   * coordinates in the ocean must not shrink the other thousands to a speck. The note below says
   * what lies outside and offers the whole extent.
   */
  function coreBounds(points) {
    if (points.length < 100) return null;
    var lats = points.map(function (p) { return p.at.lat; }).sort(function (a, b) { return a - b; });
    var lngs = points.map(function (p) { return p.at.lng; }).sort(function (a, b) { return a - b; });
    var lo = Math.floor(0.01 * (points.length - 1)), hi = Math.ceil(0.99 * (points.length - 1));
    return L.latLngBounds([lats[lo], lngs[lo]], [lats[hi], lngs[hi]]);
  }

  function outsideNote(map, points, all) {
    var view = map.getBounds();
    var outside = points.filter(function (p) { return !view.contains(p.at); });
    if (outside.length === 0) return;
    var failed = outside.filter(function (p) { return p.failed; }).length;
    var note = L.control({ position: 'topright' });
    note.onAdd = function () {
      var box = L.DomUtil.create('div', 'leaflet-bar gb-outside');
      box.textContent = outside.length + ' shape' + (outside.length === 1 ? '' : 's') + ' outside this view' +
        (failed > 0 ? ' (' + failed + ' failed)' : '') + ' ';
      var button = L.DomUtil.create('a', '', box);
      button.href = '#';
      button.textContent = 'show all';
      L.DomEvent.on(button, 'click', function (e) {
        L.DomEvent.preventDefault(e);
        map.fitBounds(all, { padding: [24, 24] });
      });
      L.DomEvent.disableClickPropagation(box);
      return box;
    };
    note.addTo(map);
  }

  /** Built as DOM nodes with textContent: row values never reach innerHTML. */
  function popup(p) {
    var box = document.createElement('div');
    var title = document.createElement('strong');
    title.textContent = 'Row ' + p.r;
    box.appendChild(title);
    box.appendChild(document.createTextNode(p.s === 'ok' ? ': ok' : ': failed, ' + p.c));
    return box;
  }

  function drawChart(points) {
    var box = document.getElementById('gb-chart');
    var x = [], rows = [], failed = [], requests = [], throttled = [];
    for (var i = 1; i < points.length; i++) {
      var a = points[i - 1], b = points[i], dt = (b.t - a.t) / 1000;
      if (!(dt > 0)) continue;
      x.push(b.t / 1000);
      rows.push(rate(b.rows - a.rows, dt));
      failed.push(rate(b.failed - a.failed, dt));
      requests.push(rate(b.requests - a.requests, dt));
      throttled.push(rate(b.throttled - a.throttled, dt));
    }
    // Fewer than two rates make no line: the page already says the run was too short (data-chart="none").
    if (x.length < 2) return;
    var plot = new uPlot({
      width: width(box),
      height: 280,
      legend: { live: false },
      scales: { x: { time: false }, n: { range: function (u, min, max) { return [0, Math.max(1, max)]; } } },
      axes: [
        { label: 'seconds since start' },
        { label: 'per second' },
        { scale: 'n', side: 1, label: '429 answers per second', grid: { show: false } }
      ],
      series: [
        { label: 'seconds' },
        { label: 'rows/s', stroke: '#2563eb', width: 2 },
        { label: 'failed rows/s', stroke: '#dc2626', width: 1.5 },
        { label: 'HTTP attempts/s', stroke: '#16a34a', width: 1.5 },
        { label: '429s/s', stroke: '#d97706', width: 1.5, scale: 'n', dash: [4, 3] }
      ]
    }, [x, rows, failed, requests, throttled], box);
    window.addEventListener('resize', function () { plot.setSize({ width: width(box), height: 280 }); });
  }

  function rate(delta, seconds) { return Math.round((delta / seconds) * 10) / 10; }
  function width(box) { return Math.max(320, box.clientWidth); }
})();`;
