// Runtime seam: password hashing with argon2id (memory-hard), Bun's built-in. Outside Bun there is
// no argon2id without a native module, and a weaker stand-in (PBKDF2) would quietly lower the bar
// for every stored password, so accounts refuse to work there with a clear error instead.

export interface PasswordCost {
  /** argon2id memory in KiB. */
  memoryKiB: number;
  /** argon2id iterations. */
  timeCost: number;
}

function bunPassword(): typeof Bun.password {
  if (typeof Bun === "undefined") throw new Error("accounts need Bun's argon2id (Bun.password); run relay cloud on Bun");
  return Bun.password;
}

/** A PHC string (`$argon2id$v=19$m=…,t=…,p=1$salt$hash`): the salt and the cost travel with the hash. */
export const hashPassword = (password: string, cost: PasswordCost): Promise<string> =>
  bunPassword().hash(password, { algorithm: "argon2id", memoryCost: cost.memoryKiB, timeCost: cost.timeCost });

/** Whether `password` matches `hash` (compared in constant time by the implementation). */
export const verifyPassword = (password: string, hash: string): Promise<boolean> => bunPassword().verify(password, hash);
