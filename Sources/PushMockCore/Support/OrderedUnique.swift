/// The strings in order with repeats removed.
func orderedUnique(_ items: [String]) -> [String] {
    var seen = Set<String>()
    return items.filter { seen.insert($0).inserted }
}
