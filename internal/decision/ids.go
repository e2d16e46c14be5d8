package decision

// TriggerIDs are the IDs of triggers, in order.
func TriggerIDs(ts []Trigger) []string {
	var ids []string
	for _, t := range ts {
		ids = append(ids, t.ID)
	}
	return ids
}
