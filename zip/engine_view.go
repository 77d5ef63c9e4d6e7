package zip

import "github.com/go-unarc/unarc/internal/engine"

// capable is Archive with the capabilities the root asks for (see engine.RegisterView).
type capable Archive

func init() { engine.RegisterView(func(a *Archive) engine.Capabilities { return (*capable)(a) }) }
