package narwhal.core.control;

/**
 * A move the rules call for: its direction, the rule that fired and the split's score before and
 * after (the after score beats the before score by at least {@code reactive.movement_margin}).
 */
record Proposal(Direction direction, MoveRule rule, SplitScore before, SplitScore after) {}
