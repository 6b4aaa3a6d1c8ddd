"""
A Python service calling dataops-temporal by name, with models generated from the contract's JSON Schemas.

It starts a test run and follows its live progress, cancels a profiling run mid-flight, and promotes test
definitions with an approval (after a refused, stale one). Exits 0 when every step behaved as the contract says.

    python dataops_example.py --address localhost:7233 --task-queue dataops-temporal \
        --table-group TG --test-suite TS --promote-from DEV --promote-to PROD
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import uuid
from typing import Generic, TypeVar

from pydantic import BaseModel, ValidationError
from temporalio.client import Client, WorkflowFailureError, WorkflowHandle, WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError, CancelledError

from dataops_models.ApproveInput import ApproveInput
from dataops_models.DataQualityPipelineInput import DataQualityPipelineInput
from dataops_models.DecisionAck import DecisionAck
from dataops_models.PreviewQueryResult import PreviewQueryResult
from dataops_models.ProfileTableGroupInput import ProfileTableGroupInput
from dataops_models.Progress import Progress
from dataops_models.PromoteTestDefinitionsInput import PromoteTestDefinitionsInput
from dataops_models.PromoteTestDefinitionsResult import PromoteTestDefinitionsResult
from dataops_models.RunTestSuiteInput import RunTestSuiteInput
from dataops_models.RunTestSuiteResult import RunTestSuiteResult

M = TypeVar("M", bound=BaseModel)


def payload(model) -> dict:
    """What to send: only the fields set (the worker applies its own defaults), in JSON form."""
    return model.model_dump(mode="json", exclude_unset=True)


class Watch(Generic[M]):
    """A query of a running workflow, asked again only once its history has grown.

    `progress` and `preview` answer from the workflow's state, which changes only with its history; each query is a
    billed action on Temporal Cloud and a describe is not. So every look describes the run, and queries it only at a
    history length it has not answered yet: a promotion waiting a day for its approval costs no query.
    """

    def __init__(self, handle: WorkflowHandle, query: str, model: type[M]) -> None:
        self.handle, self.query, self.model = handle, query, model
        self.answered_at: int | None = None
        self.answer: M | None = None

    async def read(self) -> M:
        length = (await self.handle.describe()).history_length
        if self.answer is None or length != self.answered_at:
            self.answer = self.model.model_validate(await self.handle.query(self.query))
            self.answered_at = length
        return self.answer


async def test_run(client: Client, args: argparse.Namespace) -> None:
    request = RunTestSuiteInput(testSuiteId=args.test_suite, pollIntervalMs=200, maxPollIntervalMs=500)
    handle = await client.start_workflow(
        "dataops.runTestSuite", payload(request), id=f"py-tests-{uuid.uuid4()}", task_queue=args.task_queue
    )
    progress = Watch(handle, "progress", Progress)
    seen: list[str] = []
    while True:
        p = await progress.read()
        status = p.jobs[0].status if p.jobs else None
        if status and (not seen or seen[-1] != status):
            seen.append(status)
            print(f"test run: {p.stage}, job {p.jobs[0].jobId} {status}, {p.polls} polls")
        if p.stage in ("done", "failed", "cancelled"):
            break
        await asyncio.sleep(0.2)
    result = RunTestSuiteResult.model_validate(await handle.result())
    print(f"test run: {result.job.wait.job.status}, score {result.summary.scorePercent} %")
    assert result.job.wait.job.status == "completed"


async def cancel_profiling(client: Client, args: argparse.Namespace) -> None:
    request = ProfileTableGroupInput(tableGroupId=args.table_group, pollIntervalMs=200, maxPollIntervalMs=500)
    handle = await client.start_workflow(
        "dataops.profileTableGroup", payload(request), id=f"py-profile-{uuid.uuid4()}", task_queue=args.task_queue
    )
    progress = Watch(handle, "progress", Progress)
    while not (p := await progress.read()).jobs or p.jobs[0].status != "running":
        await asyncio.sleep(0.2)
    await handle.cancel()
    try:
        await handle.result()
        raise AssertionError("a cancelled workflow returned a result")
    except WorkflowFailureError as err:
        assert isinstance(err.cause, CancelledError), f"expected a cancellation, got {err.cause!r}"
    p = Progress.model_validate(await handle.query("progress"))
    assert p.remoteCancel is not None and p.remoteCancel.confirmed, p.remoteCancel
    print(f"profiling: cancelled; remote job {p.remoteCancel.jobId} {p.remoteCancel.finalStatus}")


async def promote(client: Client, args: argparse.Namespace) -> None:
    request = PromoteTestDefinitionsInput.model_validate(
        {"source": {"testSuiteId": args.promote_from}, "targetTestSuiteId": args.promote_to, "preset": "promotion"}
    )
    handle = await client.start_workflow(
        "dataops.promoteTestDefinitions", payload(request), id=f"py-promote-{uuid.uuid4()}", task_queue=args.task_queue
    )
    previews = Watch(handle, "preview", PreviewQueryResult)
    while (preview := await previews.read()).root is None:
        await asyncio.sleep(0.2)
    print(f"promotion: preview {preview.root.previewId}: {', '.join(preview.root.diff)}")
    try:
        await handle.execute_update("approve", payload(ApproveInput(previewId="not-the-current-one")))
        raise AssertionError("a stale approval was accepted")
    except WorkflowUpdateFailedError as err:
        cause = err.cause
        assert isinstance(cause, ApplicationError) and cause.type == "StalePreview", repr(cause)
        assert cause.non_retryable
        print(f"promotion: stale approval refused: {cause.type}")
    ack = DecisionAck.model_validate(
        await handle.execute_update("approve", payload(ApproveInput(previewId=preview.root.previewId, by="python")))
    )
    result = PromoteTestDefinitionsResult.model_validate(await handle.result())
    print(f"promotion: {ack.decision.value}, {result.status.value}: {', '.join(result.diff)}")
    assert result.status.value == "applied"


def refuse_bad_input() -> None:
    """The generated models catch a bad input before anything is sent."""
    try:
        DataQualityPipelineInput.model_validate({"tableGroupId": "tg", "testSuiteId": "ts", "gates": {"minScorePercent": 101}})
        raise AssertionError("a score gate above 100 was accepted")
    except ValidationError as err:
        print(f"bad input: refused locally ({err.error_count()} problem: {err.errors()[0]['loc']})")


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--address", default="localhost:7233")
    parser.add_argument("--namespace", default="default")
    parser.add_argument("--task-queue", default="dataops-temporal")
    parser.add_argument("--table-group", required=True)
    parser.add_argument("--test-suite", required=True)
    parser.add_argument("--promote-from", required=True)
    parser.add_argument("--promote-to", required=True)
    args = parser.parse_args()
    client = await Client.connect(args.address, namespace=args.namespace)
    refuse_bad_input()
    await test_run(client, args)
    await cancel_profiling(client, args)
    await promote(client, args)
    print("all steps behaved as the contract says")
    return 0


if __name__ == "__main__":
    code = asyncio.run(main())
    # The client's Rust threads can outlive the event loop, and CPython's finalization may then abort with
    # "PyGILState_Release: thread state ... must be current" (temporalio/sdk-python#300). Nothing is left to
    # clean up once main() returned: flush and leave without the interpreter's teardown.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
