/**
 * Checks with the contract's zod schemas inside the workflow sandbox: the promotion's approval and rejection, whose
 * update validators must run here. Loaded lazily (a dynamic import), so only a promotion pays for building the two
 * schemas it needs; every workflow's input is checked by the worker (input.ts).
 */
import { checkInput } from '../contract/issues.js';
import { ApproveInput, RejectInput } from '../contract/promotion.js';

/** An approval's or a rejection's arguments, checked. */
export const checkApproval = (input: unknown) => checkInput(ApproveInput, input);
export const checkRejection = (input: unknown) => checkInput(RejectInput, input);
