#pragma once
/// @file Trainbench.h
/// Everything a plugin needs: include this one header.
#include "ApiVersion.h"
#include "Checkpoint.h"
#include "DatasetView.h"
#include "NetworkParams.h"
#include "ParamSchema.h"
#include "ParamSpec.h"
#include "RunBudget.h"
#include "RunContext.h"
#include "ScriptHost.h"
#include "Seeds.h"
#include "SparseMatrix.h"
#include "LockstepTrainer.h"
#include "SparseTrainer.h"
#include "StopToken.h"
#include "Trainer.h"
#include "TrainerFactory.h"
