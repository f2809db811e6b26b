package report

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Plot draws the hand-off latency distributions (box plots on a log
// scale, one per store, library and variant, next to the store's physical
// reference) to path as a PNG; it writes nothing if r has none.
func Plot(path string, r *Results) error {
	p := plot.New()
	p.Title.Text = "Graceful hand-off latency (box: p25–p75, whiskers 1.5 IQR, points: outliers)"
	p.Y.Label.Text = "ms (log scale)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	var names []string
	add := func(name string, ms []float64) error {
		vals := make(plotter.Values, 0, len(ms))
		for _, v := range ms {
			vals = append(vals, max(v, 0.01))
		}
		if len(vals) == 0 {
			return nil
		}
		b, err := plotter.NewBoxPlot(vg.Points(14), float64(len(names)), vals)
		if err != nil {
			return err
		}
		p.Add(b)
		names = append(names, name)
		return nil
	}
	for _, s := range r.Stores {
		if err := add(s.Name+"\nphysical", s.Physical.Samples); err != nil {
			return err
		}
		for _, h := range s.Handoff {
			if err := add(fmt.Sprintf("%s\n%s\n%s", s.Name, h.Lib, h.Variant), h.Samples); err != nil {
				return err
			}
		}
	}
	if len(names) == 0 {
		return nil // a partial run without hand-offs: nothing to draw
	}
	p.NominalX(names...)
	p.Add(plotter.NewGrid())
	return p.Save(vg.Length(max(8, len(names)))*vg.Inch*0.9, 6*vg.Inch, path)
}
