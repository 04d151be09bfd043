// Filled in by its owner; see attacks.test.ts.
import { attack } from "./tally.ts";
void attack;
