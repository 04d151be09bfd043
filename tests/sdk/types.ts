// Holds sdk/types/index.d.ts (the package's hand-written declarations) to sdk/src (the code): the
// repository's type check (tsc --noEmit -p .) compiles this file, so a declaration the code does
// not satisfy, or a shape that drifted either way, fails it. Nothing runs it.
import type * as Declared from "../../sdk/types/index.d.ts";
import type * as Code from "../../sdk/src/index.ts";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;

// Every value the declarations promise exists in the code with a type that fits it.
type Values = { [K in keyof typeof Declared]: K extends keyof typeof Code ? (typeof Code)[K] : never };
export type ValuesFit = Holds<Values extends typeof Declared ? true : false>;
export type NoValueUndeclared = Holds<Same<keyof typeof Code, keyof typeof Declared>>;

// Each shape, both ways.
export type Shapes = [
  Holds<Same<Declared.ProviderConfig, Code.ProviderConfig>>,
  Holds<Same<Declared.TelemetryConfig, Code.TelemetryConfig>>,
  Holds<Same<Declared.CloudConfig, Code.CloudConfig>>,
  Holds<Same<Declared.GlobalConfig, Code.GlobalConfig>>,
  Holds<Same<Declared.RetryConfig, Code.RetryConfig>>,
  Holds<Same<Declared.StepConfig, Code.StepConfig>>,
  Holds<Same<Declared.StepOptions, Code.StepOptions>>,
  Holds<Same<Declared.RunOptions, Code.RunOptions>>,
  Holds<Same<Declared.StepStatus, Code.StepStatus>>,
  Holds<Same<Declared.StepResult, Code.StepResult>>,
  Holds<Same<Declared.WorkflowError, Code.WorkflowError>>,
  Holds<Same<Declared.WorkflowResult, Code.WorkflowResult>>,
  Holds<Same<Declared.UpdateCheck, Code.UpdateCheck>>,
  Holds<Same<Declared.CheckOptions, Code.CheckOptions>>,
  Holds<Same<Declared.Deployment, Code.Deployment>>,
  Holds<Same<Declared.WebhookTrigger, Code.WebhookTrigger>>,
  Holds<Same<Declared.WorkflowSchedule, Code.WorkflowSchedule>>,
  Holds<Same<keyof Code.RelayCloudError, keyof Declared.RelayCloudError>>,
  // The class's instances: the code's fit the declared ones, with the same members (its #steps
  // makes them nominal, so the other way cannot hold).
  Holds<Code.Workflow extends Declared.Workflow ? true : false>,
  Holds<Same<keyof Code.Workflow, keyof Declared.Workflow>>,
  Holds<Same<Declared.StepDefinition, Code.StepDefinition>>,
];
