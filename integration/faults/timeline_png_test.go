package faults

import (
	"errors"
	"image/color"
	"math"
	"os"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/leasehold/leasehold/integration/history"
)

// The picture's geometry: a panel per run, stacked, as wide as timelineW,
// as high as panelExtra plus rowPitch per candidate row.
const (
	timelineW   = 14 * vg.Inch
	rowPitch    = 30  // points: 40 pixels at timelineDPI
	panelExtra  = 150 // points: gap, title, fault labels, x axis and its key
	panelGap    = 12  // points, above each panel
	timelineDPI = 96
	labelBand   = 1.6 // fault labels above the rows, in rows
)

// The picture's colours.
var (
	leadColor   = color.RGBA{R: 0x1f, G: 0x5f, B: 0xbf, A: 0xff}
	pausedColor = color.RGBA{R: 0xa0, G: 0xa0, B: 0xa0, A: 0xff}
	lifeColor   = color.RGBA{R: 0x60, G: 0x60, B: 0x60, A: 0xff}
	violColor   = color.RGBA{R: 0xe0, G: 0x10, B: 0x10, A: 0xff}
	faultColors = map[string]color.RGBA{
		"cut": {0xff, 0xd8, 0xb0, 0xff}, "latency-low": {0xff, 0xf0, 0xb8, 0xff},
		"latency-high": {0xff, 0xe4, 0x90, 0xff}, "pause": {0xe8, 0xd0, 0xf0, 0xff},
		"kill": {0xff, 0xa0, 0xa0, 0xff}, "store-kill": {0xc0, 0xe0, 0xff, 0xff},
		"partition": {0xc8, 0xf0, 0xd0, 0xff}, "isolate": {0xb8, 0xec, 0xe8, 0xff},
		"store-restart": {0xd0, 0xd8, 0xf8, 0xff},
	}
	otherFault = color.RGBA{0xe0, 0xe0, 0xe0, 0xff}
)

// timelineKey explains the picture under each panel's x axis.
const timelineKey = "seconds since the run's first event.   Bars: leaderships, labelled by fencing token (grey: paused).   " +
	"Thin line: candidate process alive.   Shaded: faults, labelled by kind.   ×: crash.   Red: violation (check letter)."

// timelineSize returns the size of the picture of tls.
func timelineSize(tls []timeline) (w, h vg.Length) {
	for _, tl := range tls {
		h += panelHeight(tl)
	}
	return timelineW, h
}

func panelHeight(tl timeline) vg.Length { return panelExtra + rowPitch*vg.Length(max(len(tl.rows), 1)) }

// writeTimeline draws tls, one panel each, stacked, to path as a PNG.
func writeTimeline(path string, tls []timeline) error {
	w, h := timelineSize(tls)
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(timelineDPI), vgimg.UseBackgroundColor(color.White))
	dc := draw.New(img)
	top := h
	for _, tl := range tls {
		c := dc
		c.Min.Y, c.Max.Y = top-panelHeight(tl), top-panelGap
		tl.plot().Draw(c)
		top = c.Min.Y
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = vgimg.PngCanvas{Canvas: img}.WriteTo(f)
	return errors.Join(err, f.Close())
}

// plot makes the panel of one run.
func (tl timeline) plot() *plot.Plot {
	p := plot.New()
	p.Title.Text = tl.title
	p.Title.Padding = vg.Points(12)
	p.X.Label.Text = timelineKey
	p.X.Label.TextStyle.Font.Size = vg.Points(9)
	p.X.Tick.Marker = secondTicks{}
	p.Add(tl)
	names := make([]string, len(tl.rows))
	for i, r := range tl.rows {
		names[len(tl.rows)-1-i] = r
	}
	if len(names) > 0 {
		p.NominalY(names...)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = tl.DataRange()
	return p
}

// DataRange implements plot.DataRanger: the stretch, in seconds, with a
// margin, and the rows with the fault labels' band above them.
func (tl timeline) DataRange() (xmin, xmax, ymin, ymax float64) {
	a, b := tl.sec(tl.from), tl.sec(tl.to)
	m := (b - a) / 50
	return a - m, b + m, -0.5, float64(len(tl.rows)) - 0.5 + labelBand
}

// secondTicks marks whole seconds: about 20 labelled ticks over the
// range, at a step of 1, 2, 5, 10, 20, ... seconds.
type secondTicks struct{}

// Ticks implements plot.Ticker.
func (secondTicks) Ticks(lo, hi float64) []plot.Tick {
	step := 1.0
	for i := 0; (hi-lo)/step > 20; i++ {
		step *= []float64{2, 2.5, 2}[i%3]
	}
	var ts []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		if v == 0 {
			v = 0 // not -0
		}
		ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64) + " s"})
	}
	return ts
}

// Plot implements plot.Plotter.
func (tl timeline) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	x := func(t history.Time) vg.Length { return trX(tl.sec(min(max(t, tl.from), tl.to))) }
	y := map[string]vg.Length{}
	for i, r := range tl.rows {
		y[r] = trY(float64(len(tl.rows) - 1 - i))
	}
	small := p.Y.Tick.Label
	small.Font.Size = vg.Points(8)
	small.XAlign, small.YAlign = draw.XLeft, draw.YBottom
	band := trY(float64(len(tl.rows)) - 0.5)
	tl.plotFaults(&c, x, trY, band, small)
	half := (trY(1) - trY(0)) * 0.22
	for _, l := range tl.lives {
		c.StrokeLine2(draw.LineStyle{Color: lifeColor, Width: vg.Points(0.75)}, x(l.from), y[l.label], x(l.to), y[l.label])
	}
	for _, iv := range tl.bars {
		tl.plotBar(&c, x, y[iv.Candidate], half, iv, small)
	}
	for _, m := range tl.crashes {
		c.DrawGlyph(draw.GlyphStyle{Color: color.Black, Radius: vg.Points(5), Shape: draw.CrossGlyph{}}, vg.Point{X: x(m.at), Y: y[m.label]})
	}
	red := small
	red.Color, red.XAlign = violColor, draw.XCenter
	for _, m := range tl.violations {
		c.StrokeLine2(draw.LineStyle{Color: violColor, Width: vg.Points(2)}, x(m.at), c.Min.Y, x(m.at), band)
		c.FillText(red, vg.Point{X: x(m.at), Y: band + 2}, "violation ("+m.label+")")
	}
}

// plotFaults shades each fault's window below band and labels it above,
// alternating between two heights so that neighbours do not collide.
func (tl timeline) plotFaults(c *draw.Canvas, x func(history.Time) vg.Length, trY func(float64) vg.Length, band vg.Length, sty draw.TextStyle) {
	rows := float64(len(tl.rows)) - 0.5
	for i, f := range tl.faults {
		col, ok := faultColors[f.label]
		if !ok {
			col = otherFault
		}
		x0, x1 := x(f.from), x(f.to)
		x1 = max(x1, x0+vg.Points(2))
		c.FillPolygon(col, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: band}, {X: x0, Y: band}})
		c.StrokeLine2(draw.LineStyle{Color: col, Width: vg.Points(1)}, x0, band, x0, trY(rows+0.45+0.6*float64(i%2)))
		c.FillText(sty, vg.Point{X: x0 + 2, Y: trY(rows + 0.3 + 0.6*float64(i%2))}, f.label)
	}
}

// plotBar draws one leadership, paused part grey, with its token inside
// if it fits, else above it.
func (tl timeline) plotBar(c *draw.Canvas, x func(history.Time) vg.Length, y, half vg.Length, iv history.Interval, sty draw.TextStyle) {
	end := min(iv.End, tl.to)
	stop := end
	if iv.Paused != 0 && iv.Paused < end {
		stop = iv.Paused
	}
	box := func(col color.Color, a, b history.Time) {
		x0, x1 := x(a), max(x(b), x(a)+1)
		c.FillPolygon(col, []vg.Point{{X: x0, Y: y - half}, {X: x1, Y: y - half}, {X: x1, Y: y + half}, {X: x0, Y: y + half}})
	}
	box(leadColor, iv.Start, stop)
	if stop < end {
		box(pausedColor, stop, end)
	}
	label := strconv.FormatUint(iv.Token, 10)
	x0, x1 := x(iv.Start), x(end)
	if sty.Width(label)+vg.Points(4) < x1-x0 {
		sty.Color, sty.XAlign, sty.YAlign = color.White, draw.XCenter, draw.YCenter
		c.FillText(sty, vg.Point{X: (x0 + x1) / 2, Y: y}, label)
		return
	}
	c.FillText(sty, vg.Point{X: x0, Y: y + half + 1}, label)
}
