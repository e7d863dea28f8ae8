"""The Check yourself questions at the end of lesson 07, with their targets."""

from __future__ import annotations

from lessonkit.exercises.base import Exercise
from lessonkit.exercises.judging import Target, Trap
from lessonkit.exercises.kinds import ChoiceExercise, NumberExercise
from lessonkit.exercises.quantities import Quantity
from lessonkit.i18n import _, lazy

STEPS = Quantity.count(
    lazy("{value:g} steps"),
    lazy("a number of steps"),
    lazy("a number of optimizer steps, a whole number such as 50"),
    ("steps", "step", "optimizer steps"),
)

# Lesson 07's training set and loader: 900 points in batches of 30, trained for 10 epochs in Step 3.
TRAIN_POINTS = 900
BATCH_SIZE = 30
EPOCHS = 10
_STEPS_PER_EPOCH = -(-TRAIN_POINTS // BATCH_SIZE)  # a last, smaller batch would still be a step
_STEPS = _STEPS_PER_EPOCH * EPOCHS


def _steps_target() -> Target:
    """Question 4 of lesson 07: optimizer steps in the training run, in the language shown now."""
    return Target(
        float(_STEPS),
        exact=True,  # a count
        correct=_(
            "{points} points ÷ {batch} per batch = {per_epoch} steps per epoch; "
            "× {epochs} epochs = {steps} steps. One step is one batch: forward, loss, backward, update."
        ).format(points=TRAIN_POINTS, batch=BATCH_SIZE, per_epoch=_STEPS_PER_EPOCH, epochs=EPOCHS, steps=_STEPS),
        traps=(
            Trap(float(_STEPS_PER_EPOCH), _("that is the number of steps in one epoch. The run lasts 10 epochs.")),
            Trap(float(EPOCHS), _("that is the number of epochs. Each epoch takes one step per batch.")),
            Trap(
                float(TRAIN_POINTS * EPOCHS),
                _("that counts examples, not steps. One step handles a whole batch of 30 points at once."),
            ),
            Trap(
                float(TRAIN_POINTS),
                _("that is the number of training points. A step handles a batch of 30 of them."),
            ),
        ),
    )


EXERCISES: list[Exercise] = [
    ChoiceExercise(
        "07-sorted-data",
        title=lazy("training on class-sorted data"),
        options={
            "A": lazy("The learning rate is too small: raise it."),
            "B": lazy("Each run of one class undoes what the run before taught. Fix: shuffle every epoch."),
            "C": lazy("The model is too small to tell two classes apart: add layers and neurons."),
            "D": lazy("The batches are too small to be useful: make each batch larger."),
        },
        answer="B",
        correct=lazy(
            "a long run of cats teaches 'always answer cat'; then the dogs overwrite it. With "
            "`DataLoader(..., shuffle=True)` every batch is a fair mix of both classes."
        ),
        feedback={
            "A": lazy(
                "a larger learning rate makes each run of one class overwrite the previous run even faster. "
                "The order of the data is the problem."
            ),
            "C": lazy(
                "Step 1 trained the same model on the same data, shuffled, and it learned all three classes. "
                "The model was big enough; the order was wrong."
            ),
            "D": lazy(
                "from sorted data a larger batch is still almost all one class. Only a mixed order gives mixed batches."
            ),
        },
        hints=(
            lazy("Look back at the saw-tooth loss curve in Step 1. What does the model see for ten steps in a row?"),
            lazy("What does `shuffle=True` change about each batch?"),
        ),
        explanation=lazy(
            "Without shuffling, the model sees only cats for many steps and learns 'always cat'; "
            "then only dogs, which undoes that. At the end it has forgotten the first class (Step 1's "
            "saw-tooth loss). Shuffling every epoch makes each batch a fair sample of all classes."
        ),
    ),
    ChoiceExercise(
        "07-normalise-validation",
        title=lazy("which statistics normalise the validation set"),
        options={
            "A": lazy("The validation set's own mean and standard deviation."),
            "B": lazy("The training set's mean and standard deviation, for both sets."),
            "C": lazy("The mean and standard deviation of the training and validation sets together."),
            "D": lazy("None: normalise only the training set and leave the validation set raw."),
        },
        answer="B",
        correct=lazy(
            "at prediction time you do not know the statistics of future data. The model learned on "
            "inputs shifted and scaled with the training statistics, so every later input gets the same shift "
            "and scale."
        ),
        feedback={
            "A": lazy(
                "then the same raw point would be shifted differently in the two sets, and you use facts "
                "about data the model should not know yet. Use the training statistics for both."
            ),
            "C": lazy(
                "that lets the validation data leak into the preparation, so the validation score is too "
                "hopeful. Use the training set's statistics only."
            ),
            "D": lazy(
                "the model learned on inputs near 0 with a spread of about 1. Raw inputs around 100 would "
                "look nothing like what it learned on."
            ),
        },
        hints=(
            lazy("When the model is used for real, which data do you have statistics for?"),
            lazy("The model must see every input shifted and scaled in exactly the same way it was trained on."),
        ),
        explanation=lazy(
            "Compute the mean and standard deviation on the training set only, then apply them to "
            "the training set, the validation set and any future data (Step 1, 'Split, then normalise')."
        ),
        code='answer = "B"\n# mean, std = x_train_raw.mean(0), x_train_raw.std(0)\n# x_val = (x_val_raw - mean) / std',
    ),
    ChoiceExercise(
        "07-overfitting",
        title=lazy("training loss falls, validation loss rises"),
        options={
            "A": lazy("Underfitting: the model needs more epochs."),
            "B": lazy(
                "Overfitting: the model memorises the training set. Weight decay, dropout or early stopping help."
            ),
            "C": lazy("The learning rate is too large and training is diverging."),
            "D": lazy("The validation set is too small to mean anything."),
        },
        answer="B",
        correct=lazy(
            "the model has started to learn the noise and the wrong labels of the training set, not the "
            "pattern. Regularisation (weight decay, dropout, augmentation) makes memorising harder; early "
            "stopping keeps the weights from the best validation epoch. More or cleaner data helps too."
        ),
        feedback={
            "A": lazy(
                "underfitting shows as a training loss that stays high. Here it keeps falling, and more "
                "epochs would make the gap wider."
            ),
            "C": lazy(
                "a learning rate that is too large makes the training loss jump up or turn into nan. Here "
                "the training loss keeps falling."
            ),
            "D": lazy(
                "Step 4's validation set had 300 points and showed the same rise. A rising validation "
                "loss with a falling training loss is the classic sign of memorising."
            ),
        },
        hints=(
            lazy("Which loss measures data the model has never trained on?"),
            lazy("Step 4 showed this exact picture with no regularisation. What did it call it?"),
        ),
        explanation=lazy(
            "Falling training loss with rising validation loss is overfitting (Step 4). Weight decay "
            "and dropout keep the validation loss lower; early stopping keeps the best epoch's weights."
        ),
    ),
    NumberExercise(
        "07-steps",
        title=lazy("optimizer steps in a training run"),
        unit=STEPS,
        target=_steps_target,
        hints=(
            lazy("One step is one batch. How many batches of 30 are there in 900 points?"),
            lazy("That is the number of steps in one epoch. Multiply by the {epochs} epochs.", epochs=EPOCHS),
        ),
        explanation=lazy(
            "{points} ÷ {batch} = {per_epoch} steps per epoch (`len(loader)`), "
            "× {epochs} epochs = {steps} steps: the length of the learning-rate schedule in Step 3.",
            points=TRAIN_POINTS,
            batch=BATCH_SIZE,
            per_epoch=_STEPS_PER_EPOCH,
            epochs=EPOCHS,
            steps=_STEPS,
        ),
        code=f"steps_per_epoch = {TRAIN_POINTS} // {BATCH_SIZE}   # len(loader)\n"
        f"answer = steps_per_epoch * {EPOCHS}   # {_STEPS}",
    ),
]
