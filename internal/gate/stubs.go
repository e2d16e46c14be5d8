package gate

import "bufio"

func parseJUnit(br *bufio.Reader, c *collector) error     { return parseGeneric(br, c) }
func parseJestJSON(br *bufio.Reader, c *collector) error  { return parseGeneric(br, c) }
func parseMochaJSON(br *bufio.Reader, c *collector) error { return parseGeneric(br, c) }
func parseTAP(br *bufio.Reader, c *collector) error       { return parseGeneric(br, c) }
func parseCargo(br *bufio.Reader, c *collector) error     { return parseGeneric(br, c) }
func parseCargoJSON(br *bufio.Reader, c *collector) error { return parseGeneric(br, c) }
func parseESLint(br *bufio.Reader, c *collector) error    { return parseGeneric(br, c) }
func parseRuff(br *bufio.Reader, c *collector) error      { return parseGeneric(br, c) }
func parseTSC(br *bufio.Reader, c *collector) error       { return parseGeneric(br, c) }
func parseMypy(br *bufio.Reader, c *collector) error      { return parseGeneric(br, c) }
func parseMypyJSON(br *bufio.Reader, c *collector) error  { return parseGeneric(br, c) }
func parseSARIF(br *bufio.Reader, c *collector) error     { return parseGeneric(br, c) }
