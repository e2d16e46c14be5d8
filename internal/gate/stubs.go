package gate

import "bufio"

func parseJUnit(br *bufio.Reader, c *collector) error { return parseGeneric(br, c) }
func parseTAP(br *bufio.Reader, c *collector) error   { return parseGeneric(br, c) }
func parseCargo(br *bufio.Reader, c *collector) error { return parseGeneric(br, c) }
func parseTSC(br *bufio.Reader, c *collector) error   { return parseGeneric(br, c) }
func parseMypy(br *bufio.Reader, c *collector) error  { return parseGeneric(br, c) }
func mypyLine(c *collector, line string)              {}
